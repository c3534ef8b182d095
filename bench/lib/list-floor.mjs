// The least `ralphtool list` does, as a bare node program (bench/list-changes.mjs's "list floor"):
// find the repository (one git process), read each change's tasks.md and count its boxes, find
// the newest file of each change, print a line each. No validation, no table, no modules.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';

execFileSync('git', ['rev-parse', '--git-dir'], { stdio: ['ignore', 'pipe', 'ignore'] });
const root = 'openspec/changes';

function newest(dir) {
  let time = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    time = Math.max(time, entry.isDirectory() ? newest(file) : statSync(file).mtimeMs);
  }
  return time;
}

const lines = [];
for (const entry of readdirSync(root, { withFileTypes: true })) {
  if (!entry.isDirectory() || entry.name === 'archive') continue;
  let text = '';
  try {
    text = readFileSync(path.join(root, entry.name, 'tasks.md'), 'utf8');
  } catch {
    // a change without tasks.md: no boxes
  }
  const done = (text.match(/^\s*- \[x\]/gim) ?? []).length;
  const all = (text.match(/^\s*- \[[ x]\]/gim) ?? []).length;
  const when = new Date(newest(path.join(root, entry.name))).toISOString();
  lines.push(`${entry.name}  ${String(done)}/${String(all)}  ${when}`);
}
process.stdout.write(`${lines.join('\n')}\n`);
