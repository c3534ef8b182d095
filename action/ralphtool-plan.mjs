#!/usr/bin/env node
// The plan job of the example workflow (the `plan` action): the changes with work left, as a
// JSON array for a job matrix, written as `changes=<json>` to GITHUB_OUTPUT (and to stdout).
// Work left means: stories left in tasks.md here (`ralphtool list --json`), and no run of the
// change recorded as finished on the remote (`ralphtool status --remote <remote> --json`): a
// finished run's pull request is open and waits for a person, so no job is started for it.
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

const { changes } = ralphtool(['list', '--json']);
const { runs } = ralphtool(['status', '--remote', remote, '--json']);
const finished = new Set(
  runs.filter((run) => run.state?.status === 'finished').map((run) => run.change),
);
const left = changes
  .filter((c) => c.stories.done < c.stories.total && !finished.has(c.name))
  .map((c) => c.name);
for (const name of changes.map((c) => c.name).filter((n) => finished.has(n))) {
  process.stderr.write(`ralphtool-plan: ${name}: its run finished on ${remote}, skipped\n`);
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
