// The action as a worker (input `worker: true`, one per matrix slot): `ralphtool worker --from
// <remote>` takes up the changes with work left on the remote one after another; then each
// change it took up gets its transcripts kept and its pull request opened or updated. No shell.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, cpSync, existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { ensureAgent, pinnedVersion } from './agent-install.mjs';
import { pullRequest } from './pull-request.mjs';

/**
 * Runs the worker; returns its exit code, the artifacts folder and a name for it unique among
 * the workflow's slots. `job`: { cli, toolEnv, env, remote, log, actionRoot, maxDuration, agent,
 * agentAt, extra } as the job script read them.
 */
export function workerJob(job) {
  const { cli, env, remote, log, actionRoot, maxDuration, agent, agentAt, extra } = job;
  let toolEnv = job.toolEnv;
  const outDir = path.join(path.resolve(env.OUT_DIR || 'ralphtool-artifacts'), 'worker');
  mkdirSync(outDir, { recursive: true });
  const artifactName = `ralphtool-worker-${env.GITHUB_RUN_ID ?? 'local'}-${env.GITHUB_RUN_ATTEMPT ?? '1'}-${randomBytes(4).toString('hex')}`;
  const version = env.INPUT_AGENT_VERSION || pinnedVersion(actionRoot, agent);
  if (version !== null) {
    const dir = path.join(env.RUNNER_TEMP || path.dirname(outDir), 'ralphtool-agents');
    toolEnv = { ...toolEnv, ...ensureAgent({ agent, version, env: toolEnv, dir, log }) };
  }
  const args = [
    'worker',
    '--from',
    remote,
    '--json',
    '--max-duration',
    maxDuration,
    ...(agentAt === -1 ? ['--agent', agent] : []),
    ...extra,
  ];
  log(`ralphtool ${args.join(' ')}`);
  const events = path.join(outDir, 'worker.ndjson');
  const fd = openSync(events, 'w');
  const run = spawnSync(process.execPath, [cli, ...args], {
    stdio: ['ignore', fd, 'inherit'],
    env: toolEnv,
  });
  closeSync(fd);
  const code = run.status ?? 1;
  log(`ralphtool worker exited with ${String(code)}`);
  const gitDir = path.resolve(
    spawnSync('git', ['rev-parse', '--git-common-dir'], {
      encoding: 'utf8',
      env: toolEnv,
    }).stdout.trim() || '.git',
  );
  for (const change of takenUp(events)) {
    const changeDir = path.join(outDir, change);
    mkdirSync(changeDir, { recursive: true });
    const transcripts = path.join(gitDir, 'ralphtool', change, 'transcripts');
    if (existsSync(transcripts))
      cpSync(transcripts, path.join(changeDir, 'transcripts'), { recursive: true });
    if ((env.INPUT_PR ?? 'true') === 'true') {
      pullRequest({ cli, toolEnv, env, remote, log }, change, changeDir);
    }
  }
  return { code, outDir, artifactName };
}

/** The changes the worker took up, from its `worker.ended` event (none when it never ended). */
function takenUp(events) {
  const lines = readFileSync(events, 'utf8').split('\n');
  for (const line of lines.reverse()) {
    if (!line.startsWith('{"type":"worker.ended"')) continue;
    // Names ralphtool listed and ran: valid change names, never a path or an output line.
    return JSON.parse(line)
      .taken.map((t) => t.change)
      .filter((c) => /^[a-z0-9][a-z0-9-]*$/.test(c));
  }
  return [];
}
