// The pull request of one change's branch (`ralph/<change>`), opened or updated by a job with
// `ralphtool report <change> --markdown` as its body (made safe by pull-request-body.mjs). No
// shell: `gh` and ralphtool get argument arrays.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { ghEnv } from './job-environment.mjs';
import { pullRequestBody } from './pull-request-body.mjs';

/**
 * Opens the pull request from ralph/<change> when its branch is on the remote (`gh pr create`),
 * or updates the body of the one open (`gh pr edit`). `job`: { cli, toolEnv, env, remote, log }.
 */
export function pullRequest(job, change, outDir) {
  const { cli, toolEnv, env, remote, log } = job;
  const branch = `ralph/${change}`;
  const onRemote =
    git(toolEnv, ['ls-remote', '--', remote, `refs/heads/${branch}`]).stdout.trim() !== '';
  if (!onRemote) return;
  const report = spawnSync(process.execPath, [cli, 'report', change, '--markdown'], {
    encoding: 'utf8',
    env: toolEnv,
  });
  if (report.status !== 0) {
    log(`no report: ${report.stderr.trim()}`);
    return;
  }
  const runUrl =
    env.GITHUB_SERVER_URL && env.GITHUB_REPOSITORY && env.GITHUB_RUN_ID
      ? `${env.GITHUB_SERVER_URL}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}`
      : null;
  const body = path.join(outDir, 'pull-request.md');
  writeFileSync(body, pullRequestBody(report.stdout, { artifactUrl: runUrl }));
  const open = gh(job, [
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
    gh(job, ['pr', 'edit', number, '--body-file', body]);
    log(`updated pull request #${number}`);
    return;
  }
  const base = env.INPUT_PR_BASE || defaultBranch(toolEnv, remote);
  gh(job, [
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

function defaultBranch(toolEnv, remote) {
  const head = git(toolEnv, [
    'symbolic-ref',
    '--short',
    `refs/remotes/${remote}/HEAD`,
  ]).stdout.trim();
  return head === '' ? 'main' : head.slice(remote.length + 1);
}

function gh(job, args) {
  const result = spawnSync('gh', args, { encoding: 'utf8', env: ghEnv(job.env) });
  if (result.error)
    throw new Error(`gh could not start: ${result.error.message} (install the GitHub CLI)`);
  if (result.status !== 0) job.log(`gh ${args[0]} ${args[1]} failed: ${result.stderr.trim()}`);
  return result;
}

function git(toolEnv, args) {
  return spawnSync('git', args, { encoding: 'utf8', env: toolEnv });
}
