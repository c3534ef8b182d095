import { UsageError } from '../../core/errors.js';
import type { RunMode } from '../../run/launch.js';
import type { CommandIO } from '../io.js';
import type { RawRunFlags } from '../run-flags.js';

/** `ralphtool run a b c`, `run --all`, `resume --all`: several runs, each in its own worktree. */
export function runManyCommand(
  _io: CommandIO,
  opts: {
    cwd: string;
    changes: readonly string[];
    flags: RawRunFlags;
    mode: RunMode;
    parallel: number;
  },
): Promise<number> {
  return Promise.reject(
    new UsageError(`several changes at once (${opts.changes.join(', ')}) are not built yet`),
  );
}
