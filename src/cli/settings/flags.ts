import { Option, type Command } from 'commander';
import { repeatable } from '../fallback-flags.js';
import { SETTING_KEYS, SETTING_NAMES } from './keys.js';

/** `config`'s flags: one per setting, as `run` takes it, to show what a flag would change. */
export function addSettingOptions(cmd: Command): Command {
  for (const name of SETTING_NAMES) {
    const option = new Option(
      `--${name} <value>`,
      `as for run${SETTING_KEYS[name].list ? ' (repeatable)' : ''}`,
    );
    cmd.addOption(SETTING_KEYS[name].list ? option.argParser(repeatable) : option);
  }
  return cmd;
}
