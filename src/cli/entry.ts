import type { CommandIO } from './io.js';
import { runProgram } from './program.js';
import { terminalHungUp } from './stop-signals.js';
import { reachFrom } from './reach.js';
import { colourEnabled, makeStyle } from '../format/style.js';

// The only place that reads process.argv/env/cwd and exits (but for main.ts's --version).
// The environment as it came, for everything ralphtool starts (agents, verify commands, git):
// a copy, so that the NODE_ENV set below for ralphtool's own process reaches none of them (an
// agent's `npm test` under NODE_ENV=production would test something else).
const env = { ...process.env };
// React (the terminal UI) runs its development build unless NODE_ENV says otherwise: checks
// and warnings on every render, about twice the CPU while an agent floods its output.
if (process.env.NODE_ENV === undefined) process.env.NODE_ENV = 'production';
const io: CommandIO = {
  cwd: process.cwd(),
  env,
  processEnv: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  style: makeStyle(colourEnabled(env, process.stdout.isTTY)),
  errStyle: makeStyle(colourEnabled(env, process.stderr.isTTY)),
  reach: reachFrom(process.argv[1], env, process.cwd()),
};

process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  // `run` and `resume` stop their loop cleanly instead (cli/closed-output.ts).
  if (process.stdout.listenerCount('error') > 1) return;
  // `ralphtool list | head` closes the pipe early: not an error worth a trace.
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  if (terminalGone(error)) return;
  throw error;
});
process.stderr.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE' || terminalGone(error)) return;
  throw error;
});
process.stdin.on('error', (error: NodeJS.ErrnoException) => {
  if (terminalGone(error)) return;
  throw error;
});

/**
 * Once the terminal closed (SIGHUP), writing to it fails (EIO): the stop the hang-up asked for
 * must still revert and save the agent's work, so what nobody can read any more is dropped.
 */
function terminalGone(error: NodeJS.ErrnoException): boolean {
  return error.code === 'EIO' || error.code === 'ERR_STREAM_DESTROYED';
}

const end = await runProgram(process.argv.slice(2), io);
// After a hang-up on a terminal, Node's own exit aborts (it cannot restore the settings of a
// terminal that is gone: SIGABRT, maybe a core dump). The stop is done and the run saved, so
// ralphtool ends the way a hung-up program does: by the SIGHUP itself, now that none listens.
if (terminalHungUp() && [process.stdin, process.stdout, process.stderr].some((s) => s.isTTY)) {
  process.removeAllListeners('SIGHUP');
  process.kill(process.pid, 'SIGHUP');
}
// A quit at once (a second Ctrl-C, q three times) must not wait for a stuck agent's pipes or
// the UI's timers to let go of the event loop: the run is left on disk for resume / finish.
if (end.atOnce) process.exit(end.exitCode);
process.exitCode = end.exitCode;
