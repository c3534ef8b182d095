import { Option, type Command } from 'commander';
import { UsageError } from '../core/errors.js';
import { REMOTE_DEFAULTS, type RunOptions } from '../run/options.js';
import { parsedOr, parsePositiveDuration } from './options.js';

/** The remote flags as commander hands them over. */
export interface RawRemoteFlags {
  push?: string;
  claimTtl?: string;
  from?: string;
  includeUncommitted?: boolean;
}

/** `run` and `resume`: the remote as the durable record, and the claim. */
export function addPushOptions(cmd: Command): Command {
  return cmd
    .addOption(
      new Option(
        '--push <remote>',
        "claim the change on this git remote, then push the branch, the attempt refs and the run's record there after every step (steps seconds apart in one push; a new run is refused while the work tree has uncommitted files: they would be pushed)",
      ),
    )
    .addOption(
      new Option(
        '--include-uncommitted',
        "with --push: push your uncommitted and untracked files with the run's first commit instead of refusing (refused when one holds a secret's value)",
      ),
    )
    .addOption(
      new Option(
        '--claim-ttl <duration>',
        "with --push or --from: another machine's claim whose heartbeat is older than this may be taken over (default: 15m)",
      ),
    );
}

/** `resume` and `finish`: fetch the run from a remote first (a run started on another machine). */
export function addFromOption(cmd: Command, what: string): Command {
  return cmd.addOption(
    new Option('--from <remote>', `fetch the run from this git remote first, then ${what}`),
  );
}

/** Validates the remote flags (the remote itself is checked when the run starts). */
export function remoteOptions(
  flags: RawRemoteFlags,
): Pick<RunOptions, 'push' | 'claimTtlMs' | 'from' | 'includeUncommitted'> {
  const push = flags.push === undefined ? null : remoteName(flags.push, '--push');
  const from = flags.from === undefined ? null : remoteName(flags.from, '--from');
  // `--from` pushes to the remote it fetched from: its claim is taken with the TTL too.
  if (flags.claimTtl !== undefined && push === null && from === null) {
    throw new UsageError(
      '--claim-ttl is for runs that push: add --push <remote> (or --from <remote>), or drop it',
    );
  }
  if (flags.includeUncommitted === true && push === null) {
    throw new UsageError(
      '--include-uncommitted is for runs with --push <remote> (a local run never pushes your files): add --push, or drop it',
    );
  }
  return {
    push,
    from,
    includeUncommitted: flags.includeUncommitted === true,
    claimTtlMs: parsedOr(
      flags.claimTtl,
      '--claim-ttl',
      parsePositiveDuration,
      REMOTE_DEFAULTS.claimTtlMs,
    ),
  };
}

/** A remote's name or URL: not empty, not an option. */
export function remoteName(value: string, flag: string): string {
  const name = value.trim();
  if (name === '' || name.startsWith('-')) {
    throw new UsageError(
      `${flag}: ${JSON.stringify(value)} is not a git remote: give a remote's name (\`git remote -v\` lists them) or its URL`,
    );
  }
  return name;
}
