// The git commands the checkpoint engine runs for a story, timed bare (one process each,
// like the engine spawns them) on the same repositories: the floor under ralphtool's overhead.
import { execFileSync } from 'node:child_process';
import { appendFileSync, copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { pathToFileURL } from 'node:url';
import { median } from './stats.mjs';

function timed(fn) {
  const started = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/**
 * Median milliseconds per command over `reps` repetitions in `repo` (a throwaway copy: this
 * commits on it). Each repetition first makes the kind of change a story makes.
 */
export function bareGitTimes(repo, env, reps) {
  const run = (args, extraEnv = {}) =>
    execFileSync('git', ['-c', 'core.hooksPath=/dev/null', '-c', 'commit.gpgsign=false', ...args], {
      cwd: repo,
      env: { ...env, ...extraEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  const gitDir = path.join(repo, '.git');
  const samples = {};
  const add = (name, ms) => (samples[name] ??= []).push(ms);

  for (let r = 0; r < reps; r++) {
    add(
      'rev-parse HEAD (spawn floor)',
      timed(() => run(['rev-parse', 'HEAD'])),
    );

    // Accept: the story wrote a file; status check, stage everything, checkpoint commit.
    writeFileSync(path.join(repo, `story-${r}.txt`), `story ${r}\n`);
    add(
      'status --porcelain',
      timed(() => run(['status', '--porcelain=v1', '-z', '-uall'])),
    );
    add(
      'add -A',
      timed(() => run(['add', '-A'])),
    );
    add(
      'commit',
      timed(() => run(['commit', '-q', '--allow-empty', '--no-verify', '-m', `c${r}`])),
    );

    // Revert: a tracked change and an untracked folder to save, then throw away.
    appendFileSync(path.join(repo, 'src/app.txt'), `draft ${r}\n`);
    mkdirSync(path.join(repo, 'scratch'), { recursive: true });
    writeFileSync(path.join(repo, 'scratch/draft.txt'), `draft ${r}\n`);
    const tempIndex = path.join(gitDir, `bench-index-${r}`);
    const env2 = { GIT_INDEX_FILE: tempIndex };
    add(
      'write-tree (temp index)',
      timed(() => {
        copyFileSync(path.join(gitDir, 'index'), tempIndex);
        run(['read-tree', '-m', 'HEAD^{tree}'], env2);
        run(['add', '-A'], env2);
        run(['write-tree'], env2);
      }),
    );
    rmSync(tempIndex, { force: true });
    add(
      'checkout -f -B',
      timed(() => run(['checkout', '-q', '-f', '-B', 'bench', 'HEAD', '--'])),
    );
    add(
      'reset --hard',
      timed(() => run(['reset', '-q', '--hard', 'HEAD'])),
    );
    add(
      'clean -fd',
      timed(() => run(['clean', '-q', '-f', '-d'])),
    );
  }
  const result = {};
  for (const [name, list] of Object.entries(samples)) result[name] = median(list);
  return result;
}

/** What one accepted story and one reverted attempt cost in bare git, from the medians. */
export function perStory(times) {
  const accept = times['status --porcelain'] + times['add -A'] + times['commit'];
  const revert =
    times['write-tree (temp index)'] +
    times['checkout -f -B'] +
    times['reset --hard'] +
    times['clean -fd'] +
    times['status --porcelain'];
  return { accept, revert };
}

/**
 * The cheapest git command through ralphtool's own process wrapper (node:child_process, own process group,
 * timeout): what each of the engine's git processes costs at least.
 */
export async function wrapperFloor(cli, repo, env, reps) {
  const { execProgram } = await import(
    pathToFileURL(path.join(path.dirname(cli), '../process/exec.js')).href
  );
  const samples = [];
  for (let r = 0; r < reps; r++) {
    const started = process.hrtime.bigint();
    await execProgram('git', ['rev-parse', 'HEAD'], {
      cwd: repo,
      baseEnv: process.env,
      env,
      timeoutMs: 30_000,
    });
    samples.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return median(samples);
}
