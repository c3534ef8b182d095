#!/usr/bin/env node
// Holds a git lock file the way git does (created with O_EXCL, kept open, removed at the end),
// standing in for another program's git: an editor's `git status` or a `git commit` waiting for
// its message. Usage: node lock-holder.mjs <lock> <signal-dir> [hold-ms [state-file op]]
//   waits for <signal-dir>/take (when it does not exist yet: the test's trigger), takes the
//   lock (waiting while someone else has it), writes <signal-dir>/taken, holds the lock for
//   hold-ms (forever when absent; counted from the moment ralphtool's state-file records a
//   step `op`, i.e. ralphtool is inside that sequence, when given) or until
//   <signal-dir>/release exists, then writes
//   <signal-dir>/result: "intact" when its own lock file was still there, "stolen" when someone
//   removed or replaced it. An intact lock is removed, as git does when it is done.
import {
  closeSync,
  existsSync,
  fstatSync,
  openSync,
  readFileSync,
  statSync,
  unlinkSync,
} from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import process from 'node:process';
import { writeWhole } from './write-whole.mjs';

const [lock, dir, holdArg, stateFile, op] = process.argv.slice(2);
const hold = holdArg === undefined ? Infinity : Number(holdArg);
const deadline = Date.now() + 300_000; // never outlive a test run by much

while (!existsSync(join(dir, 'take'))) {
  if (Date.now() > deadline) process.exit(3);
  await sleep(10);
}
let fd = null;
while (fd === null) {
  try {
    fd = openSync(lock, 'wx');
  } catch (error) {
    if (error.code !== 'EEXIST' || Date.now() > deadline) throw error;
    await sleep(5);
  }
}
writeWhole(join(dir, 'taken'), String(process.pid));
const released = () => existsSync(join(dir, 'release')) || Date.now() > deadline;
if (stateFile !== undefined) {
  while (!released() && stepOf(stateFile) !== op) await sleep(10);
  writeWhole(join(dir, 'step-seen'), op);
}
const until = Date.now() + hold;
while (Date.now() < until && !released()) await sleep(20);
let intact;
try {
  intact = statSync(lock).ino === fstatSync(fd).ino;
} catch {
  intact = false;
}
closeSync(fd);
if (intact) unlinkSync(lock);
writeWhole(join(dir, 'result'), intact ? 'intact' : 'stolen');

function stepOf(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8')).step?.op ?? null;
  } catch {
    return null; // not written yet, or being replaced
  }
}
