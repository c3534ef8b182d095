#!/usr/bin/env node
// The plan job of the example workflow: the changes with stories left, as a JSON array for a
// job matrix. Runs `ralphtool list --json` (RALPHTOOL_CLI: path of dist/cli/main.js) and writes
// `changes=<json>` to GITHUB_OUTPUT (and the array to stdout). No shell.
import { appendFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import process from 'node:process';

const cli = process.env.RALPHTOOL_CLI;
if (!cli) {
  process.stderr.write('ralphtool-plan: RALPHTOOL_CLI is not set\n');
  process.exit(2);
}
const listed = spawnSync(process.execPath, [cli, 'list', '--json'], { encoding: 'utf8' });
if (listed.status !== 0) {
  process.stderr.write(listed.stderr);
  process.exit(listed.status ?? 1);
}
const { changes } = JSON.parse(listed.stdout);
const left = changes.filter((c) => c.stories.done < c.stories.total).map((c) => c.name);
process.stdout.write(`${JSON.stringify(left)}\n`);
if (process.env.GITHUB_OUTPUT)
  appendFileSync(process.env.GITHUB_OUTPUT, `changes=${JSON.stringify(left)}\n`);
