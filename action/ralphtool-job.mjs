#!/usr/bin/env node
// One CI job of ralphtool on one change (the composite action at the repository's root runs
// it; it runs as well on any runner). No shell: every program gets an argument array.
//
// Environment (the action's inputs):
//   RALPHTOOL_CLI      path of ralphtool's dist/cli/main.js (run with this node)
//   INPUT_CHANGE       the change
//   INPUT_REMOTE       the git remote that holds the runs (default: origin)
//   INPUT_MAX_DURATION --max-duration of this job, below the runner's job limit (default: 330m)
//   INPUT_ARGS         more ralphtool arguments, one per line (e.g. --agent, claude)
//   INPUT_PR           "true": open or update a pull request from ralph/<change> (default)
//   INPUT_PR_BASE      its base branch (default: the remote's default branch)
//   OUT_DIR            where the NDJSON events and transcripts are copied for the artifact
//   GITHUB_OUTPUT      (set by GitHub) where outputs are written: exit-code, finished, artifacts
//
// The run: `resume <change> --from <remote>` when the remote records a run of the change (a job
// cut by the time limit, or a runner that died), else `run <change>`; with `--push <remote>
// --json --on-complete keep --max-duration …`. Exit 5 (a limit or the job's time) is not a
// failure: the next job continues from the remote. Any other non-zero exit fails the job, after
// the artifacts and the pull request.
import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  openSync,
  closeSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import process from 'node:process';

const env = process.env;
const change = required('INPUT_CHANGE');
const remote = env.INPUT_REMOTE || 'origin';
const maxDuration = env.INPUT_MAX_DURATION || '330m';
const extra = (env.INPUT_ARGS ?? '')
  .split('\n')
  .map((a) => a.trim())
  .filter((a) => a !== '');
const outDir = path.resolve(env.OUT_DIR || 'ralphtool-artifacts');
const cli = required('RALPHTOOL_CLI');
mkdirSync(outDir, { recursive: true });

const recorded =
  git(['ls-remote', '--', remote, `refs/ralphtool/${change}/record`]).stdout.trim() !== '';
const local = existsSync(path.join(gitDir(), 'ralphtool', change, 'state.json'));
const how =
  recorded && !local ? ['resume', change, '--from', remote] : [recorded ? 'resume' : 'run', change];
const args = [
  ...how,
  '--push',
  remote,
  '--json',
  '--on-complete',
  'keep',
  '--max-duration',
  maxDuration,
  ...extra,
];
log(`ralphtool ${args.join(' ')}`);

const events = path.join(outDir, `${change}.ndjson`);
const fd = openSync(events, 'w');
const run = spawnSync(process.execPath, [cli, ...args], { stdio: ['ignore', fd, 'inherit'] });
closeSync(fd);
const code = run.status ?? 1;
log(`ralphtool exited with ${code}`);

const transcripts = path.join(gitDir(), 'ralphtool', change, 'transcripts');
if (existsSync(transcripts))
  cpSync(transcripts, path.join(outDir, 'transcripts'), { recursive: true });

const branch = `ralph/${change}`;
const onRemote = git(['ls-remote', '--', remote, `refs/heads/${branch}`]).stdout.trim() !== '';
if ((env.INPUT_PR ?? 'true') === 'true' && onRemote) pullRequest();

output('exit-code', String(code));
output('finished', String(code === 0));
output('artifacts', outDir);
process.exit(code === 0 || code === 5 ? 0 : code);

/** Opens the pull request from ralph/<change>, or updates its body when one is open. */
function pullRequest() {
  const report = spawnSync(process.execPath, [cli, 'report', change, '--markdown'], {
    encoding: 'utf8',
  });
  if (report.status !== 0) {
    log(`no report: ${report.stderr.trim()}`);
    return;
  }
  const body = path.join(outDir, 'pull-request.md');
  writeFileSync(body, report.stdout);
  const open = gh([
    'pr',
    'list',
    '--head',
    branch,
    '--state',
    'open',
    '--json',
    'number',
    '--jq',
    '.[0].number // empty',
  ]);
  const number = open.stdout.trim();
  if (number !== '') {
    gh(['pr', 'edit', number, '--body-file', body]);
    log(`updated pull request #${number}`);
    return;
  }
  const base = env.INPUT_PR_BASE || defaultBranch();
  gh([
    'pr',
    'create',
    '--head',
    branch,
    '--base',
    base,
    '--title',
    `ralphtool: ${change}`,
    '--body-file',
    body,
  ]);
  log(`opened a pull request from ${branch} into ${base}`);
}

function defaultBranch() {
  const head = git(['symbolic-ref', '--short', `refs/remotes/${remote}/HEAD`]).stdout.trim();
  return head === '' ? 'main' : head.slice(remote.length + 1);
}

function gh(args) {
  const result = spawnSync('gh', args, { encoding: 'utf8' });
  if (result.error)
    throw new Error(`gh could not start: ${result.error.message} (install the GitHub CLI)`);
  if (result.status !== 0) log(`gh ${args[0]} ${args[1]} failed: ${result.stderr.trim()}`);
  return result;
}

function git(args) {
  return spawnSync('git', args, { encoding: 'utf8', env: { ...env, GIT_TERMINAL_PROMPT: '0' } });
}

function gitDir() {
  return path.resolve(git(['rev-parse', '--git-common-dir']).stdout.trim() || '.git');
}

function output(name, value) {
  if (env.GITHUB_OUTPUT) appendFileSync(env.GITHUB_OUTPUT, `${name}=${value}\n`);
}

function required(name) {
  const value = env[name];
  if (value === undefined || value === '') {
    process.stderr.write(`ralphtool-job: ${name} is not set\n`);
    process.exit(2);
  }
  return value;
}

function log(line) {
  process.stderr.write(`ralphtool-job: ${line}\n`);
}
