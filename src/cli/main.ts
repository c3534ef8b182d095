#!/usr/bin/env node
import type { CommandIO } from './io.js';
import { runProgram } from './program.js';
import { reachFrom } from './reach.js';
import { colourEnabled, makeStyle } from '../format/style.js';

// The only place that reads process.argv/env/cwd and exits.
const io: CommandIO = {
  cwd: process.cwd(),
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  style: makeStyle(colourEnabled(process.env, process.stdout.isTTY)),
  errStyle: makeStyle(colourEnabled(process.env, process.stderr.isTTY)),
  reach: reachFrom(process.argv[1], process.env, process.cwd()),
};

process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  // `ralphtool list | head` closes the pipe early: not an error worth a trace.
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

const end = await runProgram(process.argv.slice(2), io);
// A quit at once (a second Ctrl-C, q three times) must not wait for a stuck agent's pipes or
// the UI's timers to let go of the event loop: the run is left on disk for resume / finish.
if (end.atOnce) process.exit(end.exitCode);
process.exitCode = end.exitCode;
