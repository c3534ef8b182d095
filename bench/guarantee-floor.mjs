// What ralphtool's guarantees cost at the least, per story (accepted, or failing once and then
// accepted), when a node process keeps them: beside the protocol floor (the bare git commands
// from bash, bench/lib/floor-story.sh) and ralphtool itself, the same stories in the same
// repository, taking turns. The guarantee floor is a node loop
// that does only what the contract asks of every accepted story, each the cheapest way node
// has, in a process padded to ralphtool's size (a spawn forks the whole process):
//   - durable writes of a 3 KB state (temporary file, fsync, rename, fsync of the folder;
//     synchronous calls, the cheapest), so that a crash at any point is resumable: per attempt
//     its count before its agent starts and the agent's process group; the accept's step and
//     its end; a revert's step and its end;
//   - the agent started and seen to end (`true`: its own time is not the loop's);
//   - the test gate's read of what an accepted attempt changed (`git status`);
//   - the floor's git commands: `add -A` + `commit`; a failed attempt first saved (`add -A`
//     into a copy of the index, `write-tree`, `commit-tree`, `update-ref`) and reverted
//     (`reset --hard`, `clean -fd`).
// Its excess over the protocol floor is what no implementation in node keeping these guarantees
// can go below; ralphtool's excess over it is what ralphtool adds of its own.
//
//   node bench/guarantee-floor.mjs [--rounds 3] [--stories 10] [--rss-mb 90] [--cli dist/cli/main.js]
//                                  [--fail-once]   (each story's first attempt fails)
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { Buffer } from 'node:buffer';
import process from 'node:process';
import { cliPath, option, ROOT } from './lib/args.mjs';
import { benchWorkspace, CHANGE, copyRepo, makeFixtureRepo } from './lib/fixture-repo.mjs';
import { agentRunner, protocolFloor } from './lib/floor.mjs';
import { loadWatch } from './lib/load.mjs';
import { loopMs, prepareAgent, timedRun } from './lib/ralph-run.mjs';
import { median, ratio, spread, table } from './lib/stats.mjs';

const rounds = Number(option('rounds', '3'));
const stories = Number(option('stories', '10'));
// ralphtool is ~90 MB resident in a run (bench/README.md): this process is padded to as much,
// touched, so that each of its forks copies as many page tables as ralphtool's do.
const rssMb = Number(option('rss-mb', '90'));
const failOnce = process.argv.includes('--fail-once');
const cli = cliPath();
const fakeAgent = path.join(ROOT, 'test/fixtures/agents/fake-agent.mjs');
const log = (text) => process.stderr.write(`${text}\n`);

const pad = [];
while (process.memoryUsage().rss < rssMb * 1e6) pad.push(Buffer.alloc(1 << 20, pad.length));

const { work, env } = benchWorkspace('ralphtool-guarantee-');
const load = loadWatch();

/** The cheapest durable replacement of a file node has: synchronous, fsynced, renamed, folder fsynced. */
function durableWrite(file, text) {
  const dir = path.dirname(file);
  const temp = path.join(dir, `.${path.basename(file)}.${randomBytes(4).toString('hex')}.tmp`);
  mkdirSync(dir, { recursive: true });
  const fd = fs.openSync(temp, 'wx', 0o644);
  try {
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(temp, file);
  const folder = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(folder);
  } finally {
    fs.closeSync(folder);
  }
}

/** A child as the loop starts one: an argument array, its output read, its end awaited. */
function run(program, args, cwd, extraEnv = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, {
      cwd,
      env: { ...env, ...extraEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (out += chunk));
    child.stderr.resume();
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${program} ${args.join(' ')} exited ${code}`)),
    );
  });
}

/** The parts of the guarantee floor, in the order a story meets them. */
const PARTS = [
  'durable writes',
  'agents started and ended',
  "the test gate's git status",
  'a failed attempt saved and reverted',
  'add -A + commit',
];

/**
 * The guarantee floor of `stories` stories in `repo`: ms per story in all and per part
 * (PARTS), the agent's own work not timed.
 */
async function guaranteeFloor(repo, agent) {
  const state = path.join(repo, '.git', 'guarantee-floor', 'state.json');
  const parts = Object.fromEntries(PARTS.map((part) => [part, 0]));
  const timed = async (part, work) => {
    const started = process.hrtime.bigint();
    await work();
    parts[part] += Number(process.hrtime.bigint() - started) / 1e6;
  };
  const record = (step) =>
    timed(PARTS[0], () => durableWrite(state, JSON.stringify({ step, pad: 'x'.repeat(3000) })));
  const runner = agentRunner({ fakeAgent, scenarioFile: agent.scenarioFile, env });
  const attempt = async (story, n) => {
    runner.run({ cwd: repo, story, attempt: n }); // the agent's work, not timed
    await record('attempt');
    await timed(PARTS[1], () => run('true', [], repo));
    await record('agent process group');
  };
  for (let story = 1; story <= stories; story++) {
    if (failOnce) {
      await attempt(story, 1);
      await record('revert');
      await timed(PARTS[3], async () => {
        const temp = path.join(repo, '.git', `guarantee-index-${String(story)}`);
        fs.copyFileSync(path.join(repo, '.git', 'index'), temp);
        const tempEnv = { GIT_INDEX_FILE: temp };
        await run('git', ['add', '-A'], repo, tempEnv);
        const tree = (await run('git', ['write-tree'], repo, tempEnv)).trim();
        const saved = (
          await run('git', ['commit-tree', tree, '-p', 'HEAD', '-m', 'attempt'], repo)
        ).trim();
        await run(
          'git',
          ['update-ref', `refs/ralphtool/${CHANGE}/attempts/${String(story)}-1`, saved],
          repo,
        );
        await run('git', ['reset', '-q', '--hard'], repo);
        await run('git', ['clean', '-q', '-f', '-d'], repo);
        fs.rmSync(temp);
      });
      await record('reverted');
    }
    await attempt(story, failOnce ? 2 : 1);
    await timed(PARTS[2], () =>
      run('git', ['status', '--porcelain=v2', '-z', '--untracked-files=all'], repo),
    );
    await record('accept');
    await timed(PARTS[4], async () => {
      await run('git', ['add', '-A'], repo);
      await run('git', ['commit', '-q', '--no-verify', '-m', `checkpoint: ${String(story)}`], repo);
    });
    await record('accepted');
  }
  const perStory = Object.fromEntries(PARTS.map((part) => [part, parts[part] / stories]));
  return { ms: Object.values(perStory).reduce((a, b) => a + b, 0), parts: perStory };
}

try {
  log('creating the repository…');
  const template = makeFixtureRepo(work, 'fixture', { files: 20, stories }, env);
  const agent = prepareAgent(work, { stories, failFirst: failOnce, fakeAgent });
  const samples = { floor: [], guarantees: [], ralphtool: [], parts: [] };
  for (let round = 1; round <= rounds; round++) {
    const floorRepo = copyRepo(template, env);
    samples.floor.push(
      protocolFloor({ repo: floorRepo, env, stories, failFirst: failOnce, ...agent }).msPerStory,
    );
    rmSync(floorRepo, { recursive: true, force: true });
    const nodeRepo = copyRepo(template, env);
    const node = await guaranteeFloor(nodeRepo, agent);
    samples.guarantees.push(node.ms);
    samples.parts.push(node.parts);
    rmSync(nodeRepo, { recursive: true, force: true });
    const ralphRepo = copyRepo(template, env);
    const timesFile = path.join(work, 'agent-times.txt');
    const result = await timedRun({ cli, repo: ralphRepo, agent, env, timesFile });
    samples.ralphtool.push(loopMs(result.events, result.agentMs) / stories);
    rmSync(ralphRepo, { recursive: true, force: true });
    log(`round ${String(round)}/${String(rounds)} done`);
  }
  const floor = median(samples.floor);
  const guarantees = median(samples.guarantees);
  const ralph = median(samples.ralphtool);
  const excess = (v) => `${(v - floor).toFixed(1)} ms`;
  process.stdout.write(
    [
      `${failOnce ? 'stories failing once, then accepted' : 'accepted stories'}, small repository (20 files): ${String(stories)} stories, ${String(rounds)} rounds taking turns, median (min–max)`,
      `the guarantee floor's process: ${String(Math.round(process.memoryUsage().rss / 1e6))} MB resident (padded to ${String(rssMb)} MB)`,
      '',
      table(
        ['', 'ms per story', '/ protocol floor', '− protocol floor'],
        [
          ['protocol floor (bash)', spread(samples.floor), '1.00×', '0.0 ms'],
          [
            'guarantee floor (node)',
            spread(samples.guarantees),
            ratio(guarantees, floor),
            excess(guarantees),
          ],
          ['ralphtool', spread(samples.ralphtool), ratio(ralph, floor), excess(ralph)],
        ],
      ),
      '',
      `ralphtool − guarantee floor: ${(ralph - guarantees).toFixed(1)} ms per story (what ralphtool adds of its own)`,
      '',
      'the guarantee floor by part, ms per story (median of the rounds):',
      ...PARTS.filter((part) => failOnce || part !== PARTS[3]).map(
        (part) => `  ${part}: ${median(samples.parts.map((p) => p[part])).toFixed(1)} ms`,
      ),
      '',
      load.report(),
      '',
    ].join('\n'),
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
