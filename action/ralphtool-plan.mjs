#!/usr/bin/env node
// The plan job of the example workflow (the `plan` action): the changes with work left, as a
// JSON array for a job matrix, written as `changes=<json>` to GITHUB_OUTPUT (and to stdout).
// Work left is what a worker would take up (`ralphtool worker --from <remote> --list --json`,
// the one rule, core/work-left.ts): stories left here and no run recorded, or a run recorded
// unfinished that nobody holds; not a finished run (its pull request waits for a person), a
// live claim, or a run a person must look at first.
// RALPHTOOL_CLI: ralphtool to run with this node; INPUT_REMOTE (default origin); INPUT_TOKEN
// to read the remote (as the job does). No shell.
import { appendFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import process from 'node:process';
import { ralphtoolEnv } from './job-environment.mjs';

const cli = process.env.RALPHTOOL_CLI;
if (!cli) fail('RALPHTOOL_CLI is not set');
const remote = process.env.INPUT_REMOTE || 'origin';
const env = ralphtoolEnv(process.env);

// A job runs a change of this checkout only (`ralphtool list`): a run recorded for a change that
// is no longer here is a worker's, not a job's.
const here = new Set(ralphtool(['list', '--json']).changes.map((c) => c.name));
const { changes } = ralphtool(['worker', '--from', remote, '--list', '--json']);
const left = changes.filter((c) => c.action !== 'skip' && here.has(c.change)).map((c) => c.change);
for (const c of changes.filter((c) => c.action === 'skip' && c.skip !== 'complete')) {
  process.stderr.write(`ralphtool-plan: ${c.change}: ${c.why}, skipped\n`);
}
process.stdout.write(`${JSON.stringify(left)}\n`);
if (process.env.GITHUB_OUTPUT)
  appendFileSync(process.env.GITHUB_OUTPUT, `changes=${JSON.stringify(left)}\n`);

function ralphtool(args) {
  const result = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', env });
  if (result.status !== 0) fail(`ralphtool ${args[0]} failed: ${result.stderr.trim()}`);
  return JSON.parse(result.stdout);
}

function fail(line) {
  process.stderr.write(`ralphtool-plan: ${line}\n`);
  process.exit(2);
}
