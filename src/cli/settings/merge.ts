import type { RawRunFlags } from '../run-flags.js';
import { SETTING_KEYS, SETTING_NAMES, type SettingName } from './keys.js';
import type { SettingValue, SettingsFile, SettingsScope } from './settings-file.js';

// The settings' precedence (docs/contract.md, "Settings"): a flag, then the repository's file,
// then the user's, then the default. Pure: the files are read and checked before.

export type SettingSource =
  | { kind: 'flag' }
  | { kind: 'file'; scope: SettingsScope; path: string; line: number }
  | { kind: 'default' };

/**
 * `start`: a new run (or `config`), every setting applies. `resume`: the parts a run records
 * are the record's; only a flag replaces them, never what a file says now.
 */
export type SettingsMode = 'start' | 'resume';

export interface MergedSettings {
  /** The flags with the files' settings filled in, for the flags' own validation. */
  flags: RawRunFlags;
  /** Where each setting's value comes from. */
  sources: ReadonlyMap<SettingName, SettingSource>;
}

/** One place a value may come from, highest first. */
interface Layer {
  source: SettingSource;
  get: (name: SettingName) => SettingValue | undefined;
}

/** `files` highest first: the repository's, then the user's. */
export function mergeSettings(
  flags: RawRunFlags,
  files: readonly SettingsFile[],
  mode: SettingsMode,
): MergedSettings {
  const layers: Layer[] = [
    { source: { kind: 'flag' }, get: (name) => flagValue(flags, name) },
    ...files.map((file): Layer => ({
      source: { kind: 'file', scope: file.scope, path: file.path, line: 0 },
      get: (name) =>
        mode === 'resume' && SETTING_KEYS[name].recorded ? undefined : file.values.get(name)?.value,
    })),
  ];
  const chosen = new Map<SettingName, Layer>();
  for (const name of SETTING_NAMES) {
    const layer = layers.find((l) => l.get(name) !== undefined);
    if (layer !== undefined) chosen.set(name, layer);
  }
  chooseAgentGroup(layers, chosen);
  // The fallback models pair with the agents by position: both come from one place.
  const fallbacks = layers.find(
    (l) => l.get('fallback-agent') !== undefined || l.get('fallback-model') !== undefined,
  );
  for (const name of ['fallback-agent', 'fallback-model'] as const) {
    if (fallbacks?.get(name) === undefined) chosen.delete(name);
    else chosen.set(name, fallbacks);
  }

  const merged: Record<string, unknown> = { ...flags };
  const sources = new Map<SettingName, SettingSource>();
  for (const name of SETTING_NAMES) {
    const layer = chosen.get(name);
    if (layer === undefined) {
      sources.set(name, { kind: 'default' });
      delete merged[SETTING_KEYS[name].field];
      continue;
    }
    const value = layer.get(name);
    merged[SETTING_KEYS[name].field] = Array.isArray(value) ? [...(value as string[])] : value;
    sources.set(name, withLine(layer.source, files, name));
  }
  // `agent-command` alone names the `command` agent: the agent comes from where it does.
  const command = sources.get('agent-command');
  if (merged.agent === undefined && command !== undefined && command.kind !== 'default') {
    sources.set('agent', command);
  }
  return { flags: merged, sources };
}

/**
 * The agent, its command and its model go together: the agent is the highest place's that names
 * one (`agent-command` alone names `command`), and a command or a model is taken only from a
 * place that names no agent or the same one — another agent's model would be wrong for it.
 */
function chooseAgentGroup(layers: readonly Layer[], chosen: Map<SettingName, Layer>): void {
  const agentOf = (l: Layer): string | undefined =>
    (l.get('agent') as string | undefined) ??
    (l.get('agent-command') === undefined ? undefined : 'command');
  const agentLayer = layers.find((l) => agentOf(l) !== undefined);
  const agent = agentLayer === undefined ? undefined : agentOf(agentLayer);
  if (agentLayer?.get('agent') === undefined) chosen.delete('agent');
  for (const name of ['agent-command', 'model'] as const) {
    const layer = layers.find(
      (l) => l.get(name) !== undefined && [undefined, agent].includes(agentOf(l)),
    );
    if (layer === undefined) chosen.delete(name);
    else chosen.set(name, layer);
  }
}

function flagValue(flags: RawRunFlags, name: SettingName): SettingValue | undefined {
  const value: unknown = flags[SETTING_KEYS[name].field];
  // A switch with a negation (`--sandbox` / `--no-sandbox`) is `on` or `off`, as in a file.
  if (typeof value === 'boolean') return value ? 'on' : 'off';
  return typeof value === 'string' || Array.isArray(value) ? (value as SettingValue) : undefined;
}

function withLine(
  source: SettingSource,
  files: readonly SettingsFile[],
  name: SettingName,
): SettingSource {
  if (source.kind !== 'file') return source;
  const line = files.find((f) => f.path === source.path)?.values.get(name)?.line ?? 0;
  return { ...source, line };
}
