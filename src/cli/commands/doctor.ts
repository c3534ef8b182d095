import { ON_PATH, reachable } from '../../core/reach.js';
import { doctorChecks, doctorExitCode } from '../../doctor/checks.js';
import { gatherFacts } from '../../doctor/gather.js';
import { renderDoctor } from '../../doctor/render.js';
import { DEFAULT_RUN_OPTIONS } from '../../run/options.js';
import type { CommandIO } from '../io.js';
import { assertDirectory } from './cwd.js';

/**
 * `claude --version` starts a Node program, `gemini --version` two (it relaunches itself; 10 s
 * on a busy 2-core machine): allow a slow machine, never hang.
 */
const VERSION_TIMEOUT_MS = 30_000;

/** `ralphtool doctor`: one line per check with its fix; exit 1 when `run` with claude cannot work. */
export async function doctorCommand(io: CommandIO, opts: { cwd: string }): Promise<number> {
  assertDirectory(opts.cwd);
  const facts = await gatherFacts({
    cwd: opts.cwd,
    env: io.env,
    timeoutMs: DEFAULT_RUN_OPTIONS.commandTimeoutMs,
    versionTimeoutMs: VERSION_TIMEOUT_MS,
    uid: typeof process.getuid === 'function' ? process.getuid() : null,
  });
  const results = doctorChecks(facts, opts.cwd);
  io.stdout.write(reachable(renderDoctor(results, io.style), io.reach ?? ON_PATH));
  return doctorExitCode(results);
}
