// How many git processes ralphtool starts per story: one extra run with a `git` on PATH that
// logs a timestamp and hands over to the real git. Not timed (the logging costs a process).
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { timedRun } from './ralph-run.mjs';

/** Writes the logging `git` into `<dir>/git-shim/` and returns that folder. */
export function makeGitShim(dir, logFile) {
  const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  const shimDir = path.join(dir, 'git-shim');
  mkdirSync(shimDir, { recursive: true });
  const shim = path.join(shimDir, 'git');
  writeFileSync(shim, `#!/bin/sh\ndate +%s%3N >> "${logFile}"\nexec "${realGit}" "$@"\n`);
  chmodSync(shim, 0o755);
  return shimDir;
}

/**
 * Git processes inside the loop (first story.started → run.awaiting-choice) per story, and
 * in the whole run (set-up and completion included).
 */
export async function countGitProcesses({ cli, repo, agent, env, timesFile, workDir }) {
  const logFile = path.join(workDir, 'git-calls.txt');
  writeFileSync(logFile, '');
  const shimDir = makeGitShim(workDir, logFile);
  const run = await timedRun({
    cli,
    repo,
    agent,
    env: { ...env, PATH: `${shimDir}${path.delimiter}${env.PATH ?? ''}` },
    timesFile,
  });
  const calls = readFileSync(logFile, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map(Number);
  const at = (type) => Date.parse(run.events.find((e) => e.type === type)?.ts ?? '');
  const from = at('story.started');
  const to = at('run.awaiting-choice');
  return { total: calls.length, inLoop: calls.filter((t) => t >= from && t <= to).length };
}
