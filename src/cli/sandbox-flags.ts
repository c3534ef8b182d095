import { Option, type Command } from 'commander';
import { UsageError } from '../core/errors.js';
import type { IntentKey } from '../core/run-intent.js';
import { allowHostProblem } from '../core/sandbox-policy.js';
import { SANDBOX_DEFAULTS, type RunOptions } from '../run/options.js';
import { parseChoice } from './options.js';
import { repeatable } from './fallback-flags.js';

/** The sandbox flags as commander hands them over (`sandbox` as text from a settings file). */
export interface RawSandboxFlags {
  sandbox?: boolean | string;
  allowHost?: string[];
  sandboxDenyRead?: string[];
}

/** `run`, `resume` and the bare command: the agent contained (docs/sandbox.md). */
export function addSandboxOptions(cmd: Command): Command {
  return cmd
    .addOption(
      new Option(
        '--sandbox',
        "run every agent process contained: writes only in the run's work tree, the agent's own state folders and a private temp folder, no reads of credential stores, network only to the agent's API and --allow-host; refused (exit 1) where it cannot work (see ralphtool doctor); resume keeps it",
      ),
    )
    .addOption(
      new Option('--no-sandbox', 'run the agent uncontained (a resume of a sandboxed run)'),
    )
    .addOption(
      new Option(
        '--allow-host <host>',
        'with --sandbox: a host the agent may reach too, e.g. registry.npmjs.org, *.example.com, 127.0.0.1:8080 (repeatable)',
      ).argParser(repeatable),
    )
    .addOption(
      new Option(
        '--sandbox-deny-read <path>',
        'with --sandbox: a file or folder the agent may not read, beyond the credential stores (repeatable)',
      ).argParser(repeatable),
    );
}

/** `sandbox` in a settings file: on or off. */
export const SANDBOX_SWITCH = ['on', 'off'] as const;

/** A `--allow-host` value checked; a mistake is a UsageError naming the flag. */
export function parseAllowHost(value: string, flag = '--allow-host'): string {
  const problem = allowHostProblem(value);
  if (problem !== null) throw new UsageError(`${flag}: ${problem}`);
  return value;
}

/** A `--sandbox-deny-read` value: an absolute path or one under `~/`. */
export function parseDenyRead(value: string, flag = '--sandbox-deny-read'): string {
  if (!value.startsWith('/') && !value.startsWith('~/')) {
    throw new UsageError(
      `${flag}: ${JSON.stringify(value)} is not an absolute path or one under ~/ (e.g. ~/.config/mytool)`,
    );
  }
  return value;
}

export function sandboxOptions(
  flags: RawSandboxFlags,
): Pick<RunOptions, 'sandbox' | 'allowHosts' | 'sandboxDenyRead'> {
  const on =
    typeof flags.sandbox === 'string'
      ? parseChoice(flags.sandbox, SANDBOX_SWITCH, 'sandbox') === 'on'
      : (flags.sandbox ?? SANDBOX_DEFAULTS.sandbox);
  const allowHosts = (flags.allowHost ?? []).map((h) => parseAllowHost(h));
  const sandboxDenyRead = (flags.sandboxDenyRead ?? []).map((p) => parseDenyRead(p));
  return { sandbox: on, allowHosts, sandboxDenyRead };
}

/** The parts of the intent the sandbox flags give. */
export function sandboxIntentGiven(flags: RawSandboxFlags): [IntentKey, boolean][] {
  return [
    ['sandbox', flags.sandbox !== undefined],
    ['allowHosts', flags.allowHost !== undefined],
    ['sandboxDenyRead', flags.sandboxDenyRead !== undefined],
  ];
}
