// The protocol floor: the fewest git commands a story needs, run from a shell on a fresh copy
// and timed by the shell (floor-story.sh), with the same agent (run again, not timed) doing the
// same work. To accept: `add -A` + `commit`. To revert a failed attempt and keep it: `add -A`
// into a temporary index (a copy of the real one), `write-tree`, `commit-tree`, `update-ref` —
// then `reset --hard` + `clean -fd`.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { CHANGE } from './fixture-repo.mjs';

const FLOOR_STORY = path.join(path.dirname(fileURLToPath(import.meta.url)), 'floor-story.sh');

/** Runs the fake agent for one attempt in `cwd`, as ralphtool would start it (not timed). */
export function agentRunner({ fakeAgent, scenarioFile, env }) {
  return {
    run({ cwd, story, attempt, change = CHANGE }) {
      execFileSync(process.execPath, [fakeAgent], {
        cwd,
        env: {
          ...env,
          RALPHTOOL_STORY_ID: String(story),
          RALPHTOOL_ATTEMPT: String(attempt),
          RALPHTOOL_CHANGE: change,
          FAKE_AGENT_SCENARIO: scenarioFile,
        },
        input: '',
        stdio: ['pipe', 'ignore', 'ignore'],
      });
    },
  };
}

/**
 * `stories` stories in `repo`, each story's first attempt failing when `failFirst`, each story one
 * bash process (`floor-story.sh`): the agent run (not timed), then the git commands timed by
 * bash's own `time`, so the floor is what a shell pays, not node's `execFileSync` (which costs
 * each process about twice as much here). Returns the git milliseconds per story and the git
 * processes per story.
 */
export function protocolFloor({ repo, env, stories, failFirst, scenarioFile, fakeAgent }) {
  let ms = 0;
  for (let story = 1; story <= stories; story++) {
    const out = execFileSync(
      'bash',
      [FLOOR_STORY, String(story), failFirst ? '1' : '0', process.execPath, fakeAgent],
      {
        cwd: repo,
        env: { ...env, BENCH_CHANGE: CHANGE, FAKE_AGENT_SCENARIO: scenarioFile },
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    for (const line of out.split('\n')) {
      if (line.trim() !== '') ms += Number(line) * 1000;
    }
  }
  if (!Number.isFinite(ms)) throw new Error('the floor printed something other than its times');
  // Accept: add -A, commit. A failed attempt first: add -A, write-tree, commit-tree, update-ref,
  // reset --hard, clean -fd.
  return { msPerStory: ms / stories, callsPerStory: failFirst ? 8 : 2 };
}
