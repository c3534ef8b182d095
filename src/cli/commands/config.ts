import type { CommandIO } from '../io.js';
import { toRunOptions, type RawRunFlags } from '../run-flags.js';
import { configJson, effectiveSettings, renderConfig } from '../render/config.js';
import { checkWithSettings } from '../settings/check.js';
import { mergeSettings } from '../settings/merge.js';
import { readPromptTemplate, readSettingsFiles, settingsPlaces } from '../settings/load.js';
import { assertDirectory } from './cwd.js';

/**
 * `ralphtool config`: the settings a `run` started here would use, and where each comes from
 * (a flag given to `config`, the repository's file, the user's, the default).
 */
export async function configCommand(
  io: CommandIO,
  opts: { cwd: string; flags: RawRunFlags; json: boolean },
): Promise<number> {
  assertDirectory(opts.cwd);
  const places = await settingsPlaces(opts.cwd, io.env);
  const files = await readSettingsFiles(places);
  // A template a run would refuse is refused here too.
  await readPromptTemplate(places.root);
  const merged = mergeSettings(opts.flags, files, 'start');
  // The same check a run makes; as if on a terminal, so `on-complete: ask` is shown, not refused.
  checkWithSettings(merged, true);
  toRunOptions(merged.flags, true);
  const settings = effectiveSettings(merged.flags as Record<string, unknown>, merged.sources);
  const present = new Set(files.map((f) => f.path));
  io.stdout.write(
    opts.json
      ? `${JSON.stringify(configJson(places, present, settings), null, 2)}\n`
      : renderConfig(places, present, settings),
  );
  return 0;
}
