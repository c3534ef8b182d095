#!/usr/bin/env node
// Runs a program on this terminal and writes its exit status to a file, because tmux does not
// always report a dead pane's status under load. Usage: exit-recorder.mjs <file> <program> [args…]
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import process from 'node:process';

const [file, program, ...args] = process.argv.slice(2);
const child = spawn(program, args, { stdio: 'inherit' });
// The terminal's Ctrl-C reaches the whole foreground group; the program decides what it means.
process.on('SIGINT', () => {});
child.on('exit', (code, signal) => {
  writeFileSync(file, String(code ?? (signal ? 128 : 1)));
  process.exit(0);
});
