// ralphtool's own git sequence, replayed bare: every git process a recorded run started, run
// again in the same order on a fresh copy of the repository through execFileSync (one process
// each, as the engine starts them), with the agent run again (not timed) where it ran. What this
// costs is what ralphtool's git work costs; ralphtool minus this is what ralphtool adds itself.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { Buffer } from 'node:buffer';
import path from 'node:path';
import process from 'node:process';

const SHA = /\b[0-9a-f]{40}\b/g;

/** Every occurrence of the recorded repository's path, then of every recorded sha, replaced. */
function mapper(fromRepo, toRepo, shas) {
  return (text) => {
    let out = text.split(fromRepo).join(toRepo);
    if (shas.size > 0) out = out.replace(SHA, (sha) => shas.get(sha) ?? sha);
    return out;
  };
}

/** The index file git uses for a work tree: `.git/index`, or the linked worktree's own. */
function indexOf(cwd) {
  const gitDir = execFileSync('git', ['rev-parse', '--absolute-git-dir'], {
    cwd,
    encoding: 'utf8',
  }).trim();
  return path.join(gitDir, 'index');
}

/**
 * Replays `entries` (readRecording) in `toRepo`, a fresh copy of the repository the recording ran
 * in (`fromRepo`). Returns the milliseconds spent in git processes whose recorded start lies in
 * [`fromMs`, `toMs`] (the loop), how many they were, and the replay's sha for each recorded one.
 *
 * Shas differ between the runs when a commit's date does: each command's output is compared with
 * the recorded one and every recorded sha later in arguments or stdin is replaced by the replay's.
 * A temporary index that existed before its first recorded use was copied there by ralphtool
 * from the work tree's index: the replay copies it too (not timed, as a copy is not git work).
 */
export function replayRecording(entries, { fromRepo, toRepo, env, window, agent }) {
  const shas = new Map();
  const map = mapper(fromRepo, toRepo, shas);
  const seenIndexes = new Set();
  let loopMs = 0;
  let loopCalls = 0;
  for (const entry of entries) {
    const cwd = map(entry.cwd);
    if (entry.kind === 'agent') {
      agent.run({ cwd, story: entry.story, attempt: entry.attempt, change: entry.change });
      continue;
    }
    const gitEnv = { ...env };
    for (const key of Object.keys(gitEnv)) if (key.startsWith('GIT_')) delete gitEnv[key];
    for (const [key, value] of Object.entries(entry.env)) gitEnv[key] = map(value);
    const indexFile = gitEnv.GIT_INDEX_FILE;
    if (indexFile !== undefined && !seenIndexes.has(indexFile)) {
      seenIndexes.add(indexFile);
      if (entry.hadIndex && !existsSync(indexFile)) {
        mkdirSync(path.dirname(indexFile), { recursive: true });
        copyFileSync(indexOf(cwd), indexFile);
      }
    }
    const args = entry.args.map(map);
    const input = Buffer.from(map(entry.stdin.toString('latin1')), 'latin1');
    const started = process.hrtime.bigint();
    let stdout;
    try {
      stdout = execFileSync('git', args, {
        cwd,
        env: gitEnv,
        input,
        encoding: 'latin1',
        stdio: ['pipe', 'pipe', 'pipe'],
        maxBuffer: 1 << 30,
      });
    } catch (error) {
      // A command that failed in the recording (a probe: `rev-parse --verify` of a missing ref)
      // fails here too; one that did not is a replay gone wrong.
      if (entry.exitCode === 0) {
        throw new Error(
          `replay: git ${args.join(' ')} failed in ${cwd}: ${String(error.stderr ?? error)}`,
          { cause: error },
        );
      }
      stdout = String(error.stdout ?? '');
    }
    const took = Number(process.hrtime.bigint() - started) / 1e6;
    if (entry.startMs >= window.fromMs && entry.startMs <= window.toMs) {
      loopMs += took;
      loopCalls += 1;
    }
    const recorded = readFileSync(entry.stdoutFile, 'latin1').match(SHA) ?? [];
    const replayed = stdout.match(SHA) ?? [];
    if (recorded.length === replayed.length) {
      recorded.forEach((sha, i) => {
        if (sha !== replayed[i]) shas.set(sha, replayed[i]);
      });
    }
  }
  return { loopMs, loopCalls, shas };
}
