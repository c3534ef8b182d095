import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openRun } from '../../src/checkpoint/open.js';
import { startRun } from '../../src/checkpoint/start.js';
import { NO_FIGURES } from '../../src/checkpoint/records.js';
import { USER_TASKS_MESSAGE } from '../../src/checkpoint/user-tasks.js';
import { makeRepo, runLocation } from '../git/helpers.js';
import type { TempRepo } from '../git/helpers.js';

const CHANGE = 'plan';
const TASKS = `openspec/changes/${CHANGE}/tasks.md`;
const PLAN = '## 1. One\n\n- [ ] 1.1 first\n\n## 2. Two\n\n- [ ] 2.1 second\n';

const repos: TempRepo[] = [];
afterEach(() => {
  for (const made of repos.splice(0)) made.remove();
});

function repoWithPlan(opts: { ignored?: boolean } = {}): TempRepo {
  const r = makeRepo();
  repos.push(r);
  mkdirSync(join(r.dir, `openspec/changes/${CHANGE}`), { recursive: true });
  r.write(TASKS, PLAN);
  if (opts.ignored) r.write('.gitignore', 'openspec/\n');
  r.git('add', '-A');
  r.git('commit', '-q', '-m', 'plan');
  return r;
}

describe("the user's own edits of tasks.md between invocations", () => {
  it('become a commit of their own, and the repair that follows reverts only the rest', async () => {
    const r = repoWithPlan();
    const run = await startRun(runLocation(r.dir, CHANGE));
    r.write('one.txt', 'one\n');
    r.write(TASKS, PLAN.replace('- [ ] 1.1', '- [x] 1.1'));
    const first = await run.acceptStory('1', NO_FIGURES);
    // The run stopped. The user adds a story and rewords one; something else is left too.
    const edited = r.read(TASKS) + '\n## 3. Three, added by you\n\n- [ ] 3.1 third\n';
    r.write(TASKS, edited.replace('2.1 second', '2.1 second, said better'));
    r.write('stray.txt', 'left behind\n');

    const resumed = await openRun(runLocation(r.dir, CHANGE));
    expect(await resumed.takeUserTasksEdits()).toEqual([TASKS]);
    const repair = await resumed.ensureAtCheckpoint();

    expect(r.read(TASKS)).toBe(edited.replace('2.1 second', '2.1 second, said better'));
    expect(r.git('log', '--format=%s', '-1', 'ralph/plan')).toBe(USER_TASKS_MESSAGE);
    expect(r.git('rev-parse', 'ralph/plan^')).toBe(first);
    expect(resumed.state.checkpointSha).toBe(r.git('rev-parse', 'ralph/plan'));
    // Only the stray file was the repair's: saved and reverted.
    expect(repair.repaired).toBe(true);
    expect(r.git('show', `${repair.savedRef ?? ''}:stray.txt`)).toBe('left behind');
    expect(r.git('status', '--porcelain', '--untracked-files=all')).toBe('');
  });

  it('with nothing edited, nothing is taken and the branch does not move', async () => {
    const r = repoWithPlan();
    const run = await startRun(runLocation(r.dir, CHANGE));
    const tip = r.git('rev-parse', 'ralph/plan');
    r.write('stray.txt', 'x\n');
    expect(await run.takeUserTasksEdits()).toEqual([]);
    expect(r.git('rev-parse', 'ralph/plan')).toBe(tip);
  });

  it('not while an attempt is recorded as running: its edits are the attempt’s', async () => {
    const r = repoWithPlan();
    const run = await startRun(runLocation(r.dir, CHANGE));
    await run.startAttempt('1', 1);
    r.write(TASKS, PLAN.replace('- [ ] 2.1', '- [x] 2.1'));
    const reopened = await openRun(runLocation(r.dir, CHANGE));
    expect(await reopened.takeUserTasksEdits()).toEqual([]);
    const repair = await reopened.ensureAtCheckpoint();
    expect(r.read(TASKS)).toBe(PLAN);
    expect(r.git('show', `${repair.savedRef ?? ''}:${TASKS}`)).toContain('- [x] 2.1');
  });

  it('an ignored tasks.md: its recorded bytes become the edited ones', async () => {
    const r = repoWithPlan({ ignored: true });
    // Ignored and untracked: what the run's record of ignored tasks.md files is for.
    expect(r.git('ls-files', 'openspec')).toBe('');
    const run = await startRun(runLocation(r.dir, CHANGE));
    const tip = r.git('rev-parse', 'ralph/plan');
    await run.ensureAtCheckpoint();
    r.write(TASKS, `${PLAN}\n## 3. Three\n\n- [ ] 3.1 third\n`);
    const reopened = await openRun(runLocation(r.dir, CHANGE));
    expect(await reopened.takeUserTasksEdits()).toEqual([TASKS]);
    expect((await reopened.ensureAtCheckpoint()).repaired).toBe(false);
    expect(r.read(TASKS)).toContain('3.1 third');
    expect(r.git('rev-parse', 'ralph/plan')).toBe(tip);
  });
});
