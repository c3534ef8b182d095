#!/usr/bin/env node
// One CI job of ralphtool on one change (the composite action at the repository's root runs
// it; it runs as well on any runner). No shell: every program gets an argument array.
//
// Environment (the action's inputs):
//   RALPHTOOL_CLI        ralphtool to run with this node (the action's action/dist/ralphtool.mjs)
//   INPUT_CHANGE         the change: one of `ralphtool list`'s, else the job fails (exit 2)
//   INPUT_WORKER         "true": no change; a worker takes up every change with work left
//                        on the remote, one after another (worker-job.mjs)
//   INPUT_REMOTE         a remote of the checkout that holds the runs (default: origin)
//   INPUT_MAX_DURATION   --max-duration of this job, below the runner's job limit (default: 330m)
//   INPUT_AGENT          the agent (default: claude); installed from npm when not found
//   INPUT_AGENT_VERSION  its version (default: the one this ralphtool pins)
//   INPUT_ARGS           more ralphtool arguments, one per line (e.g. --max-cost, 20)
//   INPUT_PR             "true": open or update a pull request from ralph/<change> (default)
//   INPUT_PR_BASE        its base branch (default: the remote's default branch)
//   INPUT_TOKEN          the token for ralphtool's pushes and for `gh` (never for the agent)
//   INPUT_SANDBOX        "true": the agent runs with --sandbox, what it needs installed first
//                        (action/sandbox-install.mjs; default)
//   OUT_DIR              the folder under which this change's events and transcripts are kept
//   GITHUB_OUTPUT        (set by GitHub) where outputs go: exit-code, finished, artifacts,
//                        artifact-name
//
// The run: when the remote records the run as finished (its pull request is open), nothing is
// run and the job passes; `resume <change> --from <remote>` when the remote records it
// unfinished (a job cut by the time limit, or a runner that died), else `run <change>`; with
// `--push <remote> --json --on-complete keep --max-duration …`. Exit 5 (a limit or the job's
// time) is not a failure: the next job continues from the remote. Any other non-zero exit
// fails the job, after the artifacts and the pull request.
import { spawnSync } from 'node:child_process';
import { appendFileSync, closeSync, cpSync, existsSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { ensureAgent, pinnedVersion } from './agent-install.mjs';
import { ensureSandbox } from './sandbox-install.mjs';
import { ralphtoolEnv } from './job-environment.mjs';
import { pullRequest } from './pull-request.mjs';
import { workerJob } from './worker-job.mjs';

const actionRoot = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const env = process.env;
const cli = required('RALPHTOOL_CLI');
let toolEnv = ralphtoolEnv(env);

const remote = env.INPUT_REMOTE || 'origin';
if (!git(['remote']).stdout.split('\n').includes(remote)) {
  fail(`the remote ${JSON.stringify(remote)} is not one of this checkout's (\`git remote -v\`)`);
}
const maxDuration = env.INPUT_MAX_DURATION || '330m';
const extra = (env.INPUT_ARGS ?? '')
  .split('\n')
  .map((a) => a.trim())
  .filter((a) => a !== '');
const agentAt = extra.indexOf('--agent');
const agent = agentAt === -1 ? env.INPUT_AGENT || 'claude' : (extra[agentAt + 1] ?? 'claude');
const sandbox = (env.INPUT_SANDBOX ?? 'true') === 'true';
if ((env.INPUT_WORKER ?? 'false') === 'true') {
  if (env.INPUT_CHANGE) fail('give either the change or worker: true, not both');
  if (sandbox) ensureSandbox({ actionRoot, cli, env: toolEnv, log });
  // A worker per matrix slot: the changes with work left, one after another.
  const ran = workerJob({
    cli,
    toolEnv,
    env,
    remote,
    log,
    actionRoot,
    maxDuration,
    agent,
    agentAt,
    // Given to every run the worker starts: the input decides, not what a record says.
    extra: [sandbox ? '--sandbox' : '--no-sandbox', ...extra],
  });
  output('exit-code', String(ran.code));
  output('finished', String(ran.code === 0));
  output('artifacts', ran.outDir);
  output('artifact-name', ran.artifactName);
  process.exit(ran.code === 0 || ran.code === 5 ? 0 : ran.code);
}
const change = validChange(required('INPUT_CHANGE'));
const outDir = path.join(path.resolve(env.OUT_DIR || 'ralphtool-artifacts'), change);
mkdirSync(outDir, { recursive: true });
output('artifacts', outDir);
output(
  'artifact-name',
  `ralphtool-${change}-${env.GITHUB_RUN_ID ?? 'local'}-${env.GITHUB_RUN_ATTEMPT ?? '1'}`,
);

const recordedState = remoteRecord();
let code;
if (recordedState?.status === 'finished') {
  log(
    `the run of ${change} finished on ${remote} (${recordedState.choice ?? '?'}): nothing to run`,
  );
  code = 0;
} else {
  const version = env.INPUT_AGENT_VERSION || pinnedVersion(actionRoot, agent);
  if (version !== null) {
    const dir = path.join(env.RUNNER_TEMP || path.dirname(outDir), 'ralphtool-agents');
    toolEnv = { ...toolEnv, ...ensureAgent({ agent, version, env: toolEnv, dir, log }) };
  }
  if (sandbox) ensureSandbox({ actionRoot, cli, env: toolEnv, log });
  const how = recordedState !== null ? ['resume', change, '--from', remote] : ['run', change];
  const args = [
    ...how,
    '--push',
    remote,
    '--json',
    '--on-complete',
    'keep',
    '--max-duration',
    maxDuration,
    ...(agentAt === -1 ? ['--agent', agent] : []),
    // Given on every job, a resume's too: the input decides, not what an earlier job recorded.
    sandbox ? '--sandbox' : '--no-sandbox',
    ...extra,
  ];
  log(`ralphtool ${args.join(' ')}`);
  const events = path.join(outDir, `${change}.ndjson`);
  const fd = openSync(events, 'w');
  const run = spawnSync(process.execPath, [cli, ...args], {
    stdio: ['ignore', fd, 'inherit'],
    env: toolEnv,
  });
  closeSync(fd);
  code = run.status ?? 1;
  log(`ralphtool exited with ${String(code)}`);
  const transcripts = path.join(gitDir(), 'ralphtool', change, 'transcripts');
  if (existsSync(transcripts))
    cpSync(transcripts, path.join(outDir, 'transcripts'), { recursive: true });
}

if ((env.INPUT_PR ?? 'true') === 'true')
  pullRequest({ cli, toolEnv, env, remote, log }, change, outDir);

output('exit-code', String(code));
output('finished', String(code === 0));
process.exit(code === 0 || code === 5 ? 0 : code);

/** The change, when it is one of the repository's (`ralphtool list`): nothing else is used. */
function validChange(name) {
  const listed = spawnSync(process.execPath, [cli, 'list', '--json'], {
    encoding: 'utf8',
    env: toolEnv,
  });
  if (listed.status !== 0) fail(`ralphtool list failed: ${listed.stderr.trim()}`);
  const names = JSON.parse(listed.stdout).changes.map((c) => c.name);
  if (!names.includes(name)) {
    fail(`the change ${JSON.stringify(name)} is not one of this repository's (\`ralphtool list\`)`);
  }
  return name;
}

/** The remote's record of the change's run (state.json), or null when it records none. */
function remoteRecord() {
  const status = spawnSync(process.execPath, [cli, 'status', '--remote', remote, '--json'], {
    encoding: 'utf8',
    env: toolEnv,
  });
  if (status.status !== 0) fail(`could not read the runs on ${remote}: ${status.stderr.trim()}`);
  const run = JSON.parse(status.stdout).runs.find((r) => r.change === change);
  return run?.state ?? null;
}

function git(args) {
  return spawnSync('git', args, { encoding: 'utf8', env: toolEnv });
}

function gitDir() {
  return path.resolve(git(['rev-parse', '--git-common-dir']).stdout.trim() || '.git');
}

/** One output line; the values here never hold a newline (the change is a listed name). */
function output(name, value) {
  if (env.GITHUB_OUTPUT) appendFileSync(env.GITHUB_OUTPUT, `${name}=${value}\n`);
}

function required(name) {
  const value = env[name];
  if (value === undefined || value === '') fail(`${name} is not set`);
  return value;
}

function fail(line) {
  process.stderr.write(`ralphtool-job: ${line}\n`);
  process.exit(2);
}

function log(line) {
  process.stderr.write(`ralphtool-job: ${line}\n`);
}
