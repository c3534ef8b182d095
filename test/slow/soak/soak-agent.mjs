#!/usr/bin/env node
// A seeded random agent for the soak: each attempt draws one behaviour (soak-behaviours.mjs)
// from SOAK_SEED, the story id and the attempt number, so a seed replays the same run.
//
// SOAK_SEED     the run's seed (required)
// SOAK_HOSTILE  1: also the opt-in behaviours of HOSTILE_BEHAVIOURS
// SOAK_LOG_DIR  when set: <story>-<attempt>.ndjson, one line per thing done, written before
//               the process can be killed, for the checker ({behaviour}, {wrote, content},
//               {deleted}, {commit}, {child}, {ended})
import { execFileSync, spawn } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { setInterval } from 'node:timers';
import {
  attemptRandom,
  markerContent,
  markerFile,
  pickBehaviour,
  storyFile,
  storyFileContent,
  countStoryTasks,
  tickStory,
} from './soak-behaviours.mjs';

const env = process.env;
const change = env.RALPHTOOL_CHANGE ?? '';
const story = env.RALPHTOOL_STORY_ID ?? '0';
const attempt = Number(env.RALPHTOOL_ATTEMPT ?? '1');
const random = attemptRandom(env.SOAK_SEED ?? '0', story, attempt);
const tasksPath = `openspec/changes/${change}/tasks.md`;

// The prompt must be read (a full pipe would block ralphtool) but plays no part here.
process.stdin.resume();
process.stdin.on('data', () => {});
await new Promise((resolve) => process.stdin.on('end', resolve));

const behaviour = pickBehaviour(random, env.SOAK_HOSTILE === '1');
log({ behaviour });
say(`soak agent: story ${story}, attempt ${attempt}, ${behaviour}`);

switch (behaviour) {
  case 'complete':
    doStory();
    finish('COMPLETE');
    break;
  case 'commit-complete':
    doStory();
    commit(`agent: story ${story}`);
    finish('COMPLETE');
    break;
  case 'fail':
    mark();
    write(`junk/${story}-${attempt}/a.txt`, 'junk\n');
    write(storyFile(story), 'half done\n');
    appendFileSync('docs/stable.md', `scribbled by ${story}-${attempt}\n`);
    writeFileSync(tasksPath, tickStory(readFileSync(tasksPath, 'utf8'), story, 1));
    finish(`FAILED: soak fail ${story}-${attempt}`);
    break;
  case 'untick':
    mark();
    write(storyFile(story), storyFileContent(story, attempt));
    {
      // Some of the tasks ticked, never all of them (a story of one task gets none).
      const text = readFileSync(tasksPath, 'utf8');
      const count = countStoryTasks(text, story);
      if (count > 1 && random() < 0.5) writeFileSync(tasksPath, tickStory(text, story, count - 1));
    }
    finish('COMPLETE');
    break;
  case 'crash-exit':
    mark();
    process.stderr.write('soak agent: crashing on purpose\n');
    log({ ended: 'exit 1' });
    process.exit(1);
    break;
  case 'crash-kill':
    mark();
    log({ ended: 'SIGKILL' });
    process.kill(process.pid, 'SIGKILL');
    break;
  case 'hang':
    mark();
    if (random() < 0.5) hangingChild();
    log({ ended: 'hang' });
    setInterval(() => {}, 1 << 30);
    break;
  case 'commit-fail':
    mark();
    doStory();
    commit(`agent: half of story ${story}`);
    if (random() < 0.5) finish(`FAILED: soak commit-fail ${story}-${attempt}`);
    else {
      log({ ended: 'exit 1' });
      process.exit(1);
    }
    break;
  case 'delete-fail':
  case 'delete-silent':
    mark();
    deleteSomething();
    if (behaviour === 'delete-fail') finish(`FAILED: soak deleted files ${story}-${attempt}`);
    else log({ ended: 'no signal' });
    break;
  case 'commit-ignored':
    mark();
    if (random() < 0.5) {
      const present = ['.env', 'node_modules', 'build'].filter((p) => existsSync(p));
      if (present.length > 0) git('add', '-f', '--', ...present);
    } else {
      rmSync('.gitignore');
      log({ deleted: '.gitignore' });
    }
    commit(`agent: everything, ignored files too`);
    finish(`FAILED: soak committed ignored files ${story}-${attempt}`);
    break;
  case 'rewrite-fail':
    mark();
    if (random() < 0.5) git('reset', '-q', '--hard', 'HEAD~1');
    else git('commit', '-q', '--amend', '--allow-empty', '--no-verify', '-m', 'agent: amended');
    log({ commit: git('rev-parse', 'HEAD').trim() });
    finish(`FAILED: soak rewrote history ${story}-${attempt}`);
    break;
}

/** The proper work of the story: its file and every one of its tasks ticked. */
function doStory() {
  write(storyFile(story), storyFileContent(story, attempt));
  writeFileSync(tasksPath, tickStory(readFileSync(tasksPath, 'utf8'), story));
}

function mark() {
  write(markerFile(story, attempt), markerContent(story, attempt, behaviour));
}

function write(file, content) {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, content);
  log({ wrote: file, content });
}

/** One to three of: the user's tracked files (some were uncommitted or untracked at the start), a folder of them, the change's files, other stories' files. */
function deleteSomething() {
  const targets = [
    'README.md',
    'src/app.txt',
    'docs/stable.md',
    'docs/draft.md',
    'docs/staged.md',
    'notes/todo.txt',
    'bin/tool.sh',
    'docs',
    tasksPath,
    `openspec/changes/${change}/proposal.md`,
  ];
  for (let k = 1; k <= 40; k++) {
    if (String(k) !== story && existsSync(storyFile(String(k)))) targets.push(storyFile(String(k)));
  }
  const count = 1 + Math.floor(random() * 3);
  for (let i = 0; i < count; i++) {
    const target = targets[Math.floor(random() * targets.length)];
    rmSync(target, { recursive: true, force: true });
    log({ deleted: target });
  }
}

function commit(message) {
  git('add', '-A');
  git('commit', '-q', '--allow-empty', '--no-verify', '-m', message);
  log({ commit: git('rev-parse', 'HEAD').trim() });
}

function git(...args) {
  return execFileSync('git', ['-c', 'commit.gpgsign=false', ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** A child in the agent's process group that would outlive the agent if only the agent were killed. */
function hangingChild() {
  const child = spawn(
    process.execPath,
    ['-e', 'setInterval(() => {}, 1 << 30)', 'soak-hang-child'],
    {
      stdio: 'ignore',
    },
  );
  log({ child: child.pid });
}

function finish(signal) {
  say(`<promise>${signal}</promise>`);
  log({ ended: signal });
}

function say(text) {
  process.stdout.write(`${text}\n`);
}

function log(entry) {
  const dir = env.SOAK_LOG_DIR;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  appendFileSync(join(dir, `${story}-${attempt}.ndjson`), `${JSON.stringify(entry)}\n`);
}
