// The protocol floor: the fewest git commands a story needs, timed bare on a fresh copy, with the
// same agent (run again, not timed) doing the same work. To accept: `add -A` + `commit`. To revert
// a failed attempt and keep it: `add -A` into a temporary index (a copy of the real one),
// `write-tree`, `commit-tree`, `update-ref` — then `reset --hard` + `clean -fd`.
import { execFileSync } from 'node:child_process';
import { copyFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { CHANGE } from './fixture-repo.mjs';

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
 * `stories` stories in `repo`, each story's first attempt failing when `failFirst`. Returns the
 * git milliseconds per story and the git processes per story.
 */
export function protocolFloor({ repo, env, stories, failFirst, agent }) {
  let calls = 0;
  let ms = 0;
  const git = (args, extraEnv = {}) => {
    const started = process.hrtime.bigint();
    const out = execFileSync('git', args, {
      cwd: repo,
      env: { ...env, ...extraEnv },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    ms += Number(process.hrtime.bigint() - started) / 1e6;
    calls += 1;
    return out.trim();
  };
  const gitDir = path.join(repo, '.git');
  for (let story = 1; story <= stories; story++) {
    if (failFirst) {
      agent.run({ cwd: repo, story, attempt: 1 });
      const tempIndex = path.join(gitDir, `floor-index-${story}`);
      const started = process.hrtime.bigint();
      copyFileSync(path.join(gitDir, 'index'), tempIndex);
      ms += Number(process.hrtime.bigint() - started) / 1e6;
      git(['add', '-A'], { GIT_INDEX_FILE: tempIndex });
      const tree = git(['write-tree'], { GIT_INDEX_FILE: tempIndex });
      const saved = git(['commit-tree', tree, '-p', 'HEAD', '-m', `attempt ${story}-1`]);
      git(['update-ref', `refs/ralphtool/${CHANGE}/attempts/${story}-1`, saved]);
      rmSync(tempIndex, { force: true });
      git(['reset', '-q', '--hard']);
      git(['clean', '-q', '-f', '-d']);
    }
    agent.run({ cwd: repo, story, attempt: failFirst ? 2 : 1 });
    git(['add', '-A']);
    git(['commit', '-q', '--no-verify', '-m', `checkpoint: ${story}`]);
  }
  return { msPerStory: ms / stories, callsPerStory: calls / stories };
}
