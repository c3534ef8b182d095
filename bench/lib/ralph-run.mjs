// One timed `ralphtool run` with the scripted fake agent, and the agent's own time measured
// around each agent process by a tiny shell wrapper (so ralphtool's time is wall − agent).
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { CHANGE } from './fixture-repo.mjs';
import { agentWrapperScript } from './git-record.mjs';

/**
 * Writes the agent wrapper and the fake agent's scenario into `dir`. The wrapper's own cost (a
 * bash start, a few ms) is counted as ralphtool's, so the figures err on the side of more
 * overhead.
 */
export function prepareAgent(
  dir,
  { stories, failFirst, fakeAgent, tag = failFirst ? 'revert' : 'plain' },
) {
  const wrapper = path.join(dir, 'timed-agent.sh');
  writeFileSync(wrapper, agentWrapperScript());
  chmodSync(wrapper, 0o755);

  const scenario = {};
  for (let i = 1; i <= stories; i++) {
    const done = [
      { write: `src/story-${i}.txt`, content: `work of story ${i}\n` },
      { tick: 'all' },
      { signal: 'COMPLETE' },
    ];
    if (failFirst) {
      // A tracked change and untracked files: the revert has to reset and clean both.
      scenario[`${i}-1`] = [
        { append: 'src/app.txt', content: `draft ${i}\n` },
        { write: `scratch/story-${i}/draft.txt`, content: 'draft\n' },
        { signal: 'FAILED: benchmark asks for one retry' },
      ];
    }
    scenario[`${i}-*`] = done;
  }
  const scenarioFile = path.join(dir, `scenario-${tag}.json`);
  writeFileSync(scenarioFile, JSON.stringify(scenario));
  return { wrapper, scenarioFile, fakeAgent, failFirst };
}

/** Runs the CLI once in `repo`; returns wall time, agent time, attempts and the events. */
export async function timedRun({ cli, repo, agent, env, timesFile }) {
  writeFileSync(timesFile, '');
  const args = [
    cli,
    'run',
    CHANGE,
    '--agent',
    'command',
    '--agent-command',
    agent.wrapper,
    '--json',
    '--on-complete',
    'keep',
  ];
  const runEnv = {
    ...env,
    BENCH_NODE: process.execPath,
    BENCH_FAKE_AGENT: agent.fakeAgent,
    BENCH_AGENT_TIMES: timesFile,
    FAKE_AGENT_SCENARIO: agent.scenarioFile,
  };
  const started = process.hrtime.bigint();
  const { code, stdout, stderr } = await spawnCollect(process.execPath, args, repo, runEnv);
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  if (code !== 0) {
    throw new Error(`ralphtool run exited ${code}: ${stderr.trim() || stdout.slice(-2000)}`);
  }
  const events = stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line));
  const attempts = existsSync(timesFile)
    ? readFileSync(timesFile, 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => {
          const [key, start, end] = line.split(' ');
          return { key, ms: (Number(end) - Number(start)) * 1000 };
        })
    : [];
  const agentMs = attempts.reduce((sum, a) => sum + a.ms, 0);
  return { wallMs, agentMs, attempts: attempts.length, events };
}

/**
 * Time inside the loop (first story.started → run.awaiting-choice) minus agent time: what each
 * story costs, without the process start, the run's set-up and the completion choice.
 */
export function loopMs(events, agentMs) {
  const ts = (type, last = false) => {
    const list = events.filter((e) => e.type === type);
    const event = last ? list.at(-1) : list[0];
    return event ? Date.parse(event.ts) : NaN;
  };
  return ts('run.awaiting-choice') - ts('story.started') - agentMs;
}

function spawnCollect(program, args, cwd, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
