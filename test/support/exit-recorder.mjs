#!/usr/bin/env node
// Runs a program on this terminal and writes its exit status to a file, because tmux does not
// always report a dead pane's status under load. Usage: exit-recorder.mjs <file> <program> [args…]
import { spawn } from 'node:child_process';
import { renameSync, writeFileSync } from 'node:fs';
import { constants } from 'node:os';
import process from 'node:process';

const [file, program, ...args] = process.argv.slice(2);
const child = spawn(program, args, { stdio: 'inherit' });
// The terminal's Ctrl-C reaches the whole foreground group; the program decides what it means.
process.on('SIGINT', () => {});
// A closed terminal (tmux kill-session) hangs up the session leader, this recorder: like a
// login shell it passes the SIGHUP on to the program, and stays to write down how it ended.
process.on('SIGHUP', () => child.kill('SIGHUP'));
child.on('exit', (code, signal) => {
  // Killed by a signal: 128 + its number, as a shell reports it (129 SIGHUP, 134 SIGABRT).
  // Written whole (temp file, then rename): a test polling the file must never read it empty,
  // which it once did under load and took for exit status 0.
  const status = String(code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : 1));
  writeFileSync(`${file}.tmp`, status);
  renameSync(`${file}.tmp`, file);
  process.exit(0);
});
