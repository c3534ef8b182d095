// One soak run: a repository with a change of many stories and the user's own files of every
// kind, `ralphtool run` with the seeded random agent, then the consistency check. Plain JS,
// shared by test/fuzz/soak.test.ts and bench/soak.mjs.
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { clearTimeout, setTimeout } from 'node:timers';
import { URL, fileURLToPath } from 'node:url';
import { checkSoakRun } from './soak-check.mjs';
import { cleanGitEnv, git, snapshotTree } from './soak-snapshot.mjs';

export const SOAK_CHANGE = 'soak-change';
export const SOAK_AGENT = fileURLToPath(new URL('./soak-agent.mjs', import.meta.url));

/** The user's files that git ignores: never versioned, so they must survive untouched. */
export const IGNORED_FILES = ['.env', 'node_modules/x/index.js', 'build/out.bin'];

function tasksMarkdown(stories, tasksPerStory) {
  const groups = [];
  for (let i = 1; i <= stories; i++) {
    const tasks = [];
    for (let j = 1; j <= tasksPerStory; j++) tasks.push(`- [ ] ${i}.${j} Part ${j} of story ${i}`);
    groups.push(`## ${i}. Story ${i}\n\n${tasks.join('\n')}\n`);
  }
  return groups.join('\n');
}

/**
 * A repository on `main` holding the change, with committed, uncommitted (changed and
 * staged), untracked and ignored user files, and a scratch folder outside it for the agent's
 * log. `before` is the work tree as the run finds it.
 */
export function makeSoakWorld({ stories = 30, tasksPerStory = 2 } = {}) {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'ralphtool-soak-')));
  const scratch = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'ralphtool-soak-log-')));
  const write = (file, content) => {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), content);
  };
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.name', 'Soak User');
  git(dir, 'config', 'user.email', 'soak@example.com');
  git(dir, 'config', 'commit.gpgsign', 'false');
  write('README.md', '# soak project\n');
  write('src/app.txt', 'app v1\n');
  write('.gitignore', '.env\nnode_modules/\nbuild/\n');
  write('docs/stable.md', 'stable docs\n');
  write('docs/draft.md', 'draft v1\n');
  write('docs/with space ü.md', 'an odd name\n');
  write('bin/tool.sh', '#!/bin/sh\necho tool\n');
  chmodSync(path.join(dir, 'bin/tool.sh'), 0o755);
  write(`openspec/changes/${SOAK_CHANGE}/proposal.md`, `# ${SOAK_CHANGE}\n\nWhy: a soak.\n`);
  write(`openspec/changes/${SOAK_CHANGE}/tasks.md`, tasksMarkdown(stories, tasksPerStory));
  write(
    `openspec/changes/${SOAK_CHANGE}/specs/demo/spec.md`,
    '## ADDED Requirements\n\n### Requirement: Demo\n\nThe demo SHALL work.\n\n#### Scenario: Works\n- **WHEN** it runs\n- **THEN** it works\n',
  );
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'initial commit');
  const mainSha = git(dir, 'rev-parse', 'HEAD').trim();

  write('docs/draft.md', 'draft v2, not committed yet\n');
  write('docs/staged.md', 'staged, not committed\n');
  git(dir, 'add', 'docs/staged.md');
  write('notes/todo.txt', 'my own notes\n');
  write('.env', 'SECRET=do-not-lose\n');
  write('node_modules/x/index.js', 'module.exports = 42;\n');
  write('build/out.bin', Buffer.from([0, 1, 2, 255, 254, 0, 10, 13]));

  return {
    dir,
    scratch,
    logDir: path.join(scratch, 'agent-log'),
    change: SOAK_CHANGE,
    stories,
    tasksPerStory,
    mainSha,
    ignored: IGNORED_FILES,
    before: snapshotTree(dir),
  };
}

export function removeSoakWorld(world) {
  rmSync(world.dir, { recursive: true, force: true });
  rmSync(world.scratch, { recursive: true, force: true });
}

function quote(word) {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * `ralphtool run <change> --json` with the soak agent; resolves with the exit code, the
 * events and stderr. A run that outlives `timeoutMs` is killed and reported as such.
 */
export function runSoakCli(
  world,
  {
    cli,
    seed,
    maxRetries = 3,
    agentTimeout = '2s',
    onComplete = 'keep',
    timeoutMs = 600_000,
    hostile = false,
  },
) {
  const args = [
    cli,
    'run',
    world.change,
    '--agent',
    'command',
    '--agent-command',
    `${quote(process.execPath)} ${quote(SOAK_AGENT)}`,
    '--json',
    '--max-retries',
    String(maxRetries),
    '--agent-timeout',
    agentTimeout,
    '--on-complete',
    onComplete,
  ];
  const env = cleanGitEnv({ SOAK_SEED: String(seed), SOAK_LOG_DIR: world.logDir, NO_COLOR: '1' });
  delete env.FORCE_COLOR;
  if (hostile) env.SOAK_HOSTILE = '1';
  else delete env.SOAK_HOSTILE;
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: world.dir,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const events = [];
      const badLines = [];
      for (const line of stdout.split('\n')) {
        if (line.trim() === '') continue;
        try {
          events.push(JSON.parse(line));
        } catch {
          badLines.push(line);
        }
      }
      resolve({
        seed,
        onComplete,
        maxRetries,
        exitCode: code,
        signal,
        timedOut,
        events,
        badLines,
        stderr,
        durationMs: Date.now() - started,
      });
    });
  });
}

/**
 * A whole soak run: world, run, check, and the world removed unless `keep` (or unless it
 * found a problem and `keepFailed`). Resolves with the check's report plus the run's figures.
 */
export async function soakOnce(options) {
  const world = makeSoakWorld(options);
  let removed = false;
  try {
    const run = await runSoakCli(world, options);
    const report = checkSoakRun(world, run);
    const keepIt = options.keep || (options.keepFailed && report.problems.length > 0);
    if (!keepIt) {
      removeSoakWorld(world);
      removed = true;
    }
    return {
      ...report,
      durationMs: run.durationMs,
      stderr: run.stderr,
      world: removed ? null : world,
      run,
    };
  } catch (error) {
    if (!removed && !options.keep) removeSoakWorld(world);
    throw error;
  }
}
