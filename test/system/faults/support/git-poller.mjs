#!/usr/bin/env node
// An editor's git integration: runs `git status`, `git update-index --refresh` and `git add` of
// an unchanged file in a loop in <repo> (each takes .git/index.lock for a moment) until
// <stop-file> exists, then writes how many rounds it made to <stop-file>.count.
// Usage: node git-poller.mjs <repo> <stop-file>
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import process from 'node:process';
import { writeWhole } from './write-whole.mjs';

const [repo, stopFile] = process.argv.slice(2);
const git = (...args) => {
  try {
    execFileSync('git', args, { cwd: repo, stdio: 'ignore' });
  } catch {
    // A command refused on ralphtool's own lock, as an editor's would be: try again next round.
  }
};
const deadline = Date.now() + 300_000;
let rounds = 0;
while (!existsSync(stopFile) && Date.now() < deadline) {
  git('status', '--porcelain');
  git('update-index', '-q', '--refresh');
  git('add', '--', 'docs/stable.md');
  rounds += 1;
}
writeWhole(`${stopFile}.count`, String(rounds));
