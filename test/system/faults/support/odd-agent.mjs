#!/usr/bin/env node
// An agent that does to the file system what the fake agent cannot: file <-> directory swaps,
// case-only renames, newlines in names, symlinks, executable bits, truncating a huge file.
// Attempt 1 makes a mess and fails; attempt 2 does the story with odd files and completes.
import {
  chmodSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname } from 'node:path';
import process from 'node:process';

const change = process.env.RALPHTOOL_CHANGE ?? '';
const attempt = process.env.RALPHTOOL_ATTEMPT ?? '1';
process.stdin.resume();
process.stdin.on('data', () => {});
await new Promise((resolve) => process.stdin.on('end', resolve));

function write(path, content) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
}

/** A file becomes a directory of the same name. */
function fileToDir(path) {
  rmSync(path, { force: true });
  write(`${path}/inner.txt`, 'was a file\n');
}

function tickAll() {
  const file = `openspec/changes/${change}/tasks.md`;
  writeFileSync(file, readFileSync(file, 'utf8').replace(/- \[ \]/g, '- [x]'));
}

if (attempt === '1') {
  fileToDir('src/app.txt');
  rmSync('odd dir', { recursive: true, force: true });
  write('odd dir', 'a directory became a file\n');
  renameSync('README.md', 'readme.md');
  write('new\nfile.txt', 'newline in the name\n');
  symlinkSync('/etc/passwd', 'escape');
  chmodSync('bin/tool.sh', 0o644);
  writeFileSync('big/blob.bin', 'truncated\n');
  process.stdout.write('<promise>FAILED: made a mess</promise>\n');
} else {
  renameSync('README.md', 'Readme.md');
  fileToDir('src/app.txt');
  symlinkSync('src', 'latest');
  write('src/run.sh', '#!/bin/sh\necho run\n');
  chmodSync('src/run.sh', 0o755);
  write('数据/ß.txt', 'unicode\n');
  tickAll();
  process.stdout.write('<promise>COMPLETE</promise>\n');
}
