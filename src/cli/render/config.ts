import { clean } from '../../format/text.js';
import { formatDuration } from '../../format/units.js';
import { table } from '../../format/table.js';
import {
  DEFAULT_RUN_OPTIONS,
  PARALLEL_LIMITS,
  REVIEW_DEFAULTS,
  UNATTENDED_DEFAULTS,
} from '../../run/options.js';
import { SETTING_KEYS, SETTING_NAMES, type SettingName } from '../settings/keys.js';
import type { SettingSource } from '../settings/merge.js';
import type { SettingValue } from '../settings/settings-file.js';

// What `ralphtool config` prints: each setting's value and where it comes from. Pure.

/** The built-in value of each setting, as a person would type it. */
const DEFAULT_TEXT: Readonly<Record<SettingName, string>> = {
  agent: DEFAULT_RUN_OPTIONS.agent,
  'agent-command': 'none',
  model: "the agent's own",
  'max-retries': String(DEFAULT_RUN_OPTIONS.maxRetries),
  'agent-timeout': formatDuration(DEFAULT_RUN_OPTIONS.agentTimeoutMs),
  'idle-timeout': formatDuration(DEFAULT_RUN_OPTIONS.idleTimeoutMs),
  verify: 'none',
  'verify-timeout': formatDuration(DEFAULT_RUN_OPTIONS.verifyTimeoutMs),
  'on-limit': DEFAULT_RUN_OPTIONS.onLimit,
  'max-wait': formatDuration(DEFAULT_RUN_OPTIONS.maxWaitMs),
  'pause-at': 'none',
  'fallback-agent': 'none',
  'fallback-model': "each agent's own",
  'max-cost': 'none',
  'max-story-cost': 'none',
  notify: 'none',
  'notify-url': 'none',
  'notify-timeout': formatDuration(UNATTENDED_DEFAULTS.notifyTimeoutMs),
  'review-agent': "none (--review: the run's agent)",
  'review-command': 'none',
  'max-review-rounds': String(REVIEW_DEFAULTS.maxReviewRounds),
  'max-duration': 'none',
  'on-complete': 'ask on a terminal, else keep',
  'command-timeout': formatDuration(DEFAULT_RUN_OPTIONS.commandTimeoutMs),
  parallel: String(PARALLEL_LIMITS.default),
  'worktree-parent': 'the folder holding the repository',
  sandbox: 'off',
  'allow-host': 'none',
  'sandbox-deny-read': 'none',
};

export interface EffectiveSetting {
  name: SettingName;
  /** Null: the built-in default applies. */
  value: SettingValue | null;
  source: SettingSource;
}

/** Each setting with its value as the merged flags hold it. */
export function effectiveSettings(
  flags: Record<string, unknown>,
  sources: ReadonlyMap<SettingName, SettingSource>,
): EffectiveSetting[] {
  return SETTING_NAMES.map((name) => {
    const source = sources.get(name) ?? { kind: 'default' };
    const raw =
      name === 'agent' && flags.agent === undefined && flags.agentCommand !== undefined
        ? 'command'
        : flags[SETTING_KEYS[name].field];
    const value = source.kind === 'default' ? null : ((raw as SettingValue | undefined) ?? null);
    return { name, value, source };
  });
}

/** A URL may carry a token in its path or user part: only where it goes is shown. */
function shown(name: SettingName, value: string): string {
  if (name !== 'notify-url') return value;
  try {
    const url = new URL(value);
    return `${url.protocol}//${url.host}/…`;
  } catch {
    return '…';
  }
}

function valueText(setting: EffectiveSetting): string {
  if (setting.value === null) return DEFAULT_TEXT[setting.name];
  const values = typeof setting.value === 'string' ? [setting.value] : setting.value;
  if (values.length === 0) return 'none';
  const word = (v: string): string => (/^\S+$/.test(v) ? v : JSON.stringify(v));
  return values.map((v) => word(shown(setting.name, v))).join(', ');
}

export function sourceText(source: SettingSource): string {
  if (source.kind === 'file') return `${source.path}:${source.line}`;
  return source.kind === 'flag' ? 'flag' : 'default';
}

/** The plain text: the files looked at, then one row per setting. */
export function renderConfig(
  places: { repository: string | null; user: string },
  present: ReadonlySet<string>,
  settings: readonly EffectiveSetting[],
): string {
  const file = (label: string, at: string | null): string =>
    at === null
      ? `${label}: none (not in a git repository)`
      : `${label}: ${at}${present.has(at) ? '' : ' (absent)'}`;
  const rows = settings.map((s) => [s.name, clean(valueText(s)), clean(sourceText(s.source))]);
  return [
    file('repository settings', places.repository),
    file('user settings', places.user),
    '',
    ...table([['SETTING', 'VALUE', 'FROM'], ...rows]),
    '',
  ].join('\n');
}

/** The JSON of `config --json`: the files, then each setting's value and where it comes from. */
export function configJson(
  places: { repository: string | null; user: string },
  present: ReadonlySet<string>,
  settings: readonly EffectiveSetting[],
): unknown {
  const fileOf = (at: string | null): unknown =>
    at === null ? null : { path: at, present: present.has(at) };
  return {
    files: { repository: fileOf(places.repository), user: fileOf(places.user) },
    settings: Object.fromEntries(
      settings.map((s) => [
        s.name,
        {
          value:
            s.value === null
              ? null
              : typeof s.value === 'string'
                ? shown(s.name, s.value)
                : s.value.map((v) => shown(s.name, v)),
          from: s.source.kind === 'file' ? s.source.scope : s.source.kind,
          ...(s.source.kind === 'file' ? { file: s.source.path, line: s.source.line } : {}),
          ...(s.value === null ? { default: DEFAULT_TEXT[s.name] } : {}),
        },
      ]),
    ),
  };
}
