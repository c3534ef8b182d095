#!/usr/bin/env node
import type { CommandIO } from './io.js';
import { runProgram } from './program.js';
import { colourEnabled, makeStyle } from '../format/style.js';

// The only place that reads process.argv/env and sets the exit code.
const io: CommandIO = {
  cwd: process.cwd(),
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  style: makeStyle(colourEnabled(process.env, process.stdout.isTTY)),
  errStyle: makeStyle(colourEnabled(process.env, process.stderr.isTTY)),
};

process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  // `ralphtool list | head` closes the pipe early: not an error worth a trace.
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

process.exitCode = await runProgram(process.argv.slice(2), io);
