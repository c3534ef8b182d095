import { RalphError, UsageError } from '../../core/errors.js';
import { toRunOptions } from '../run-flags.js';
import type { MergedSettings } from './merge.js';

/**
 * The flags and the files' settings checked together, as the flags alone are: a mistake that
 * only the mix makes (`agent-command` from a file with `--agent codex`) names the files whose
 * settings took part, so the user knows where to look.
 */
export function checkWithSettings(settings: MergedSettings, interactive: boolean): void {
  const fromFiles = new Map<string, string[]>();
  for (const [name, source] of settings.sources) {
    if (source.kind !== 'file') continue;
    fromFiles.set(source.path, [...(fromFiles.get(source.path) ?? []), name]);
  }
  if (fromFiles.size === 0) return;
  try {
    toRunOptions(settings.flags, interactive);
  } catch (error) {
    if (!(error instanceof RalphError)) throw error;
    const named = [...fromFiles].map(([file, names]) => `${file} gave ${names.join(', ')}`);
    throw new UsageError(`${error.message} (with the settings files: ${named.join('; ')})`);
  }
}
