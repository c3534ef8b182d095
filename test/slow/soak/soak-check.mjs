// The soak's consistency check: after a run, whatever the agent did, the events, the git
// history, the saved attempts, the state file and the user's files must all agree. Returns
// problems as readable lines (empty = consistent) and the run's figures.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  ACCEPTING,
  EXPECTED_KINDS,
  countStoryTasks,
  storyFile,
  storyFileContent,
  tickStory,
} from './soak-behaviours.mjs';
import {
  checkAttemptRefs,
  checkPrompts,
  checkState,
  checkStrayProcesses,
  clip,
} from './soak-check-records.mjs';
import { readSoakEvents } from './soak-events.mjs';
import { blobId, diffEntries, git, snapshotTree, treeEntries } from './soak-snapshot.mjs';

export function checkSoakRun(world, run) {
  const problems = [];
  const add = (message) => problems.push(message);
  const { change } = world;
  if (run.timedOut) add(`ralphtool did not finish within its time limit (killed)`);
  for (const line of run.badLines.slice(0, 3))
    add(`stdout line is not JSON: ${line.slice(0, 200)}`);

  const read = readSoakEvents(
    run.events,
    { change, maxRetries: run.maxRetries, onComplete: run.onComplete },
    problems,
  );
  const { attempts, finished } = read;
  const outcome = finished?.outcome ?? null;
  const wantExit = outcome === 'complete' ? 0 : outcome === 'max-retries' ? 3 : null;
  if (run.exitCode !== wantExit) {
    add(
      `exit code ${run.exitCode}${run.signal ? ` (${run.signal})` : ''} for outcome ${outcome}: ${run.stderr.trim().split('\n').slice(-3).join(' | ')}`,
    );
  }
  const accepted = attempts.filter((a) => a.accepted);
  const failed = attempts.filter((a) => !a.accepted && a.kind !== null);

  // A check that cannot even run (a sha from the events git does not know) is a problem too.
  const guard = (name, check) => {
    try {
      return check();
    } catch (error) {
      add(`${name}: the check failed: ${clip(error.message)}`);
      return null;
    }
  };
  const logs = guard('agent logs', () => checkBehaviours(world, attempts, add)) ?? new Map();
  const tip = accepted.at(-1)?.sha ?? read.baseSha;
  const finalTree = read.baseSha
    ? guard('history', () => checkHistory(world, read.baseSha, accepted, add))
    : null;
  guard('attempt refs', () => checkAttemptRefs(world, failed, logs, add));
  guard('state.json', () => checkState(world, run, read, tip, add));
  guard('prompts', () => checkPrompts(world, attempts, add));
  guard('processes', () => checkStrayProcesses(logs, add));
  if (finalTree) {
    if (run.onComplete === 'keep') guard('keep', () => checkKept(world, tip, finalTree, add));
    else guard('cleanup', () => checkCleanedUp(world, finalTree, add));
  }

  const failedByKind = {};
  for (const a of failed) failedByKind[a.kind] = (failedByKind[a.kind] ?? 0) + 1;
  const behaviours = {};
  for (const log of logs.values()) {
    const name = log[0]?.behaviour ?? 'none';
    behaviours[name] = (behaviours[name] ?? 0) + 1;
  }
  return {
    seed: run.seed,
    exitCode: run.exitCode,
    outcome,
    storiesCompleted: accepted.length,
    storiesTotal: read.stories.length,
    attempts: attempts.length,
    failedByKind,
    behaviours,
    problems,
  };
}

/** Each attempt's verdict fits what the agent did; the agent ran only for reported attempts. */
function checkBehaviours(world, attempts, add) {
  const logs = new Map();
  const files = existsSync(world.logDir) ? readdirSync(world.logDir) : [];
  for (const file of files) {
    const entries = readFileSync(path.join(world.logDir, file), 'utf8')
      .split('\n')
      .filter(Boolean)
      .flatMap((line) => {
        try {
          return [JSON.parse(line)];
        } catch {
          return []; // a line cut short when the agent was killed
        }
      });
    logs.set(file.replace(/\.ndjson$/, ''), entries);
  }
  const reported = new Set(attempts.map((a) => `${a.storyId}-${a.attempt}`));
  for (const key of logs.keys())
    if (!reported.has(key)) add(`agent ran for ${key}, which no event reports`);
  for (const a of attempts) {
    const key = `${a.storyId}-${a.attempt}`;
    const behaviour = logs.get(key)?.[0]?.behaviour;
    if (!behaviour) {
      if (a.kind !== 'timeout')
        add(`${key}: the agent left no log, verdict ${a.kind ?? 'accepted'}`);
      continue;
    }
    if (a.accepted && !ACCEPTING.has(behaviour)) add(`${key}: ${behaviour} was accepted`);
    if (!a.accepted && a.kind !== 'timeout') {
      const allowed = EXPECTED_KINDS[behaviour] ?? [];
      if (!allowed.includes(a.kind))
        add(`${key}: ${behaviour} judged ${a.kind}: ${clip(a.reason)}`);
    }
  }
  return logs;
}

/**
 * The branch history from "initial state": each checkpoint's tree is its parent's plus the
 * story's file and the story's ticks, nothing else. Returns the expected final tree.
 */
function checkHistory(world, baseSha, accepted, add) {
  const { dir, change, mainSha, before } = world;
  const tip = accepted.at(-1)?.sha ?? baseSha;
  const log = git(dir, 'log', '--reverse', '--format=%H %P%x09%s', `${mainSha}..${tip}`)
    .split('\n')
    .filter(Boolean);
  const want = [
    { sha: baseSha, subject: 'initial state' },
    ...accepted.map((a) => ({ sha: a.sha, subject: `checkpoint: ${a.storyId}` })),
  ];
  const got = log.map((line) => {
    const [ids, subject] = line.split('\t');
    const [sha, ...parents] = ids.split(' ');
    return { sha, parents, subject };
  });
  const show = (list) => list.map((c) => c.subject).join(', ');
  if (
    got.length !== want.length ||
    got.some((c, i) => c.sha !== want[i].sha || c.subject !== want[i].subject)
  ) {
    add(`history: ${show(got)}; expected ${show(want)}`);
  }
  got.forEach((c, i) => {
    const parent = i === 0 ? mainSha : got[i - 1].sha;
    if (c.parents.join(' ') !== parent)
      add(`history: ${c.subject} has parents ${c.parents.join(' ')}, not ${parent}`);
  });

  const tasksPath = `openspec/changes/${change}/tasks.md`;
  const ignored = new Set(world.ignored);
  const expected = new Map(
    [...before]
      .filter(([file]) => !ignored.has(file))
      .map(([file, e]) => [file, { mode: e.mode, oid: e.oid }]),
  );
  let tasks = before.get(tasksPath).content.toString('utf8');
  for (const problem of diffEntries(expected, treeEntries(dir, baseSha), 'initial state'))
    add(problem);
  for (const a of accepted) {
    const ticked = tickStory(tasks, a.storyId);
    if (ticked === tasks || countStoryTasks(ticked, a.storyId) !== 0)
      add(`story ${a.storyId} had no unticked tasks to tick`);
    tasks = ticked;
    expected.set(tasksPath, { mode: '100644', oid: blobId(tasks) });
    expected.set(storyFile(a.storyId), {
      mode: '100644',
      oid: blobId(storyFileContent(a.storyId, a.attempt)),
    });
    for (const problem of diffEntries(expected, treeEntries(dir, a.sha), `checkpoint ${a.storyId}`))
      add(problem);
  }
  return expected;
}

/** keep: on the run's branch at the last checkpoint, clean, the ignored files untouched. */
function checkKept(world, tip, finalTree, add) {
  const { dir, change, mainSha } = world;
  const head = git(dir, 'symbolic-ref', '-q', 'HEAD').trim();
  if (head !== `refs/heads/ralph/${change}`) add(`keep: HEAD is ${head}`);
  const branch = git(dir, 'rev-parse', `refs/heads/ralph/${change}`).trim();
  if (branch !== tip) add(`keep: ralph/${change} is at ${branch}, not the last checkpoint ${tip}`);
  checkBranches(world, [`main`, `ralph/${change}`], add);
  if (git(dir, 'rev-parse', 'refs/heads/main').trim() !== mainSha) add('keep: main moved');
  const status = git(dir, 'status', '--porcelain', '--untracked-files=all');
  if (status !== '')
    add(`keep: the work tree is not clean: ${status.trim().split('\n').slice(0, 5).join(' | ')}`);
  const want = new Map(finalTree);
  for (const file of world.ignored) want.set(file, world.before.get(file));
  for (const problem of diffEntries(want, snapshotTree(dir), 'work tree')) add(problem);
}

/** What soak-world.mjs stages before the run (`git add docs/staged.md`). */
const STAGED_BY_USER = ['docs/staged.md'];

/** cleanup: back on main at its commit, only what the user had staged staged again, the user's files byte for byte plus the stories' work. */
function checkCleanedUp(world, finalTree, add) {
  const { dir, mainSha, before } = world;
  const head = git(dir, 'symbolic-ref', '-q', 'HEAD').trim();
  if (head !== 'refs/heads/main') add(`cleanup: HEAD is ${head}`);
  if (git(dir, 'rev-parse', 'HEAD').trim() !== mainSha) add('cleanup: main moved');
  checkBranches(world, ['main'], add);
  // The user's staged files come back staged where the run left them as they were.
  const wantStaged = STAGED_BY_USER.filter(
    (file) =>
      finalTree.get(file) !== undefined && finalTree.get(file).oid === before.get(file)?.oid,
  );
  const staged = git(dir, 'diff', '--cached', '--name-only').trim();
  if (staged !== wantStaged.join('\n'))
    add(
      `cleanup: staged ${staged.split('\n').join(', ') || 'nothing'}; expected ${wantStaged.join(', ') || 'nothing'}`,
    );
  for (const file of wantStaged) {
    const oid = git(dir, 'rev-parse', `:${file}`).trim();
    if (oid !== before.get(file).oid)
      add(`cleanup: ${file} is staged as ${oid}, not as the user staged it`);
  }
  const want = new Map(before);
  for (const [file, entry] of finalTree)
    if (file.startsWith('stories/') || file.endsWith('/tasks.md')) want.set(file, entry);
  for (const problem of diffEntries(want, snapshotTree(dir), 'work tree')) add(problem);
}

function checkBranches(world, names, add) {
  const branches = git(
    world.dir,
    'for-each-ref',
    '--format=%(refname:short)',
    'refs/heads/',
    'refs/tags/',
  )
    .split('\n')
    .filter(Boolean)
    .sort();
  if (branches.join(' ') !== [...names].sort().join(' '))
    add(`branches and tags: ${branches.join(' ')}; expected ${names.join(' ')}`);
}
