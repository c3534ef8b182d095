import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LoopHarness } from '../support/loop-harness.js';
import { loopTypes, ofType, single, stories, succeed } from './helpers.js';

const CHANGE = 'add-widgets';

/** Three stories; story 2 edits a tracked file, the others add files. */
const THREE_STORIES = {
  '1-1': succeed('src/one.txt', 'story one\n'),
  '2-1': [
    { write: 'src/app.txt', content: 'app v2\n' },
    { write: 'src/two.txt', content: 'story two\n' },
    { tick: 'all' },
    { signal: 'COMPLETE' },
  ],
  '3-1': succeed('docs/three.md', '# three\n'),
};

const STORY_CYCLE = ['story.started', 'checkpoint.created', 'story.completed'];

let fixture: LoopHarness | undefined;
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
});

describe('the loop: every story succeeds', () => {
  it('emits the contract events in order and keeps one commit per story', async () => {
    fixture = new LoopHarness(CHANGE, stories(3, 2)).scenario(THREE_STORIES);
    const mainBefore = fixture.git('rev-parse', 'main').trim();

    const result = await fixture.run({ completion: 'keep' });
    expect(result.exitCode).toBe(0);

    const events = result.events();
    expect(loopTypes(events)).toEqual([
      'run.started',
      ...STORY_CYCLE,
      ...STORY_CYCLE,
      ...STORY_CYCLE,
      'run.awaiting-choice',
      'run.finished',
    ]);
    // Each story's agent messages come between its start and its checkpoint.
    const seq = events.map((e) => e.type);
    for (const id of ['1', '2', '3']) {
      const started = events.findIndex((e) => e.type === 'story.started' && e.storyId === id);
      const created = events.findIndex((e) => e.type === 'checkpoint.created' && e.storyId === id);
      const messages = events
        .map((e, i) => ({ e, i }))
        .filter(({ e }) => e.type === 'agent.message' && e.storyId === id);
      expect(messages.length).toBeGreaterThan(0);
      for (const { i } of messages) expect(i > started && i < created).toBe(true);
      expect(seq[created + 1]).toBe('story.completed');
    }

    const started = single(events, 'run.started');
    expect(started).toMatchObject({
      change: CHANGE,
      branch: `ralph/${CHANGE}`,
      originalBranch: 'main',
      agent: 'command',
      maxRetries: 3,
      stories: [
        { id: '1', title: 'Story 1', done: false },
        { id: '2', title: 'Story 2', done: false },
        { id: '3', title: 'Story 3', done: false },
      ],
    });
    expect(started.baseSha).toMatch(/^[0-9a-f]{40}$/);

    const storyStarts = ofType(events, 'story.started');
    expect(storyStarts.map((e) => [e.storyId, e.index, e.total, e.completed, e.attempt])).toEqual([
      ['1', 1, 3, 0, 1],
      ['2', 2, 3, 1, 1],
      ['3', 3, 3, 2, 1],
    ]);
    expect(ofType(events, 'story.completed').map((e) => [e.storyId, e.attempts])).toEqual([
      ['1', 1],
      ['2', 1],
      ['3', 1],
    ]);
    expect(single(events, 'run.awaiting-choice')).toMatchObject({
      outcome: 'complete',
      options: ['cleanup', 'keep'],
    });
    expect(single(events, 'run.finished')).toMatchObject({
      outcome: 'complete',
      choice: 'keep',
      branch: `ralph/${CHANGE}`,
      originalBranch: 'main',
      storiesCompleted: 3,
      storiesTotal: 3,
    });

    // Keep: on the run's branch, "initial state" then one checkpoint per story.
    expect(fixture.currentBranch()).toBe(`ralph/${CHANGE}`);
    expect(fixture.subjects(`main..ralph/${CHANGE}`)).toEqual([
      'initial state',
      'checkpoint: 1',
      'checkpoint: 2',
      'checkpoint: 3',
    ]);
    const checkpoints = ofType(events, 'checkpoint.created').map((e) => e.sha);
    const shas = fixture
      .git('log', '--reverse', '--format=%H', `main..ralph/${CHANGE}`)
      .trim()
      .split('\n');
    expect(checkpoints).toEqual(shas.slice(1));
    expect(shas[0]).toBe(started.baseSha);
    expect(fixture.git('rev-parse', 'main').trim()).toBe(mainBefore);
    expect(fixture.status()).toEqual([]);
    expect(fixture.read('src/one.txt')).toBe('story one\n');
    expect(fixture.read('src/app.txt')).toBe('app v2\n');
    expect(fixture.read('src/two.txt')).toBe('story two\n');
    expect(fixture.read('docs/three.md')).toBe('# three\n');
    expect(fixture.read(`openspec/changes/${CHANGE}/tasks.md`)).not.toContain('- [ ]');
    // Each checkpoint holds its own story's work and not the next one's.
    expect(fixture.git('ls-tree', '-r', '--name-only', 'ralph/' + CHANGE + '~2')).toContain(
      'src/one.txt',
    );
    expect(fixture.git('ls-tree', '-r', '--name-only', 'ralph/' + CHANGE + '~2')).not.toContain(
      'src/two.txt',
    );
    expect(fixture.attemptRefs()).toEqual([]);
    expect(fixture.state()).toMatchObject({
      status: 'finished',
      outcome: 'complete',
      choice: 'keep',
    });
  });

  it('cleanup brings everything back to main as unstaged changes, the user’s own files intact', async () => {
    fixture = new LoopHarness(CHANGE, stories(3), {
      '.gitignore': '.env\nnode_modules/\n',
      'notes/tracked.md': 'tracked v1\n',
    }).scenario(THREE_STORIES);
    const f = fixture;
    // The user's work in progress: a modified tracked file, an untracked file, ignored files.
    const userEdit = 'tracked v1\nplus an uncommitted line\r\n\u00e9\n';
    f.repo.write('notes/tracked.md', userEdit);
    f.repo.write('notes/untracked.txt', 'scratch notes\n');
    f.repo.write('.env', 'SECRET=1\n');
    f.repo.write('node_modules/x/index.js', 'module.exports = 1;\n');
    const ignoredStat = (file: string): [number, number] => {
      const s = statSync(path.join(f.dir, file));
      return [s.ino, s.mtimeMs];
    };
    const envBefore = ignoredStat('.env');
    const moduleBefore = ignoredStat('node_modules/x/index.js');
    const mainLog = f.git('log', '--format=%H %s', 'main');

    const result = await f.run({ completion: 'cleanup' });
    expect(result.exitCode).toBe(0);
    expect(single(result.events(), 'run.finished')).toMatchObject({
      outcome: 'complete',
      choice: 'cleanup',
      storiesCompleted: 3,
    });

    expect(f.currentBranch()).toBe('main');
    expect(f.branchExists(`ralph/${CHANGE}`)).toBe(false);
    expect(f.git('log', '--format=%H %s', 'main')).toBe(mainLog);

    const status = f.status();
    // Nothing staged: the index column is blank (or "?" for untracked).
    for (const line of status) expect(line[0] === ' ' || line[0] === '?').toBe(true);
    expect(status).toEqual(
      expect.arrayContaining([
        ' M notes/tracked.md',
        '?? notes/untracked.txt',
        ' M src/app.txt',
        ` M openspec/changes/${CHANGE}/tasks.md`,
        '?? src/one.txt',
        '?? src/two.txt',
        '?? docs/three.md',
      ]),
    );
    expect(status).toHaveLength(7);

    expect(f.read('notes/tracked.md')).toBe(userEdit);
    expect(f.read('notes/untracked.txt')).toBe('scratch notes\n');
    expect(f.read('src/app.txt')).toBe('app v2\n');
    expect(f.read('docs/three.md')).toBe('# three\n');
    expect(readFileSync(path.join(f.dir, '.env'), 'utf8')).toBe('SECRET=1\n');
    expect(f.read('node_modules/x/index.js')).toBe('module.exports = 1;\n');
    expect(ignoredStat('.env')).toEqual(envBefore);
    expect(ignoredStat('node_modules/x/index.js')).toEqual(moduleBefore);
    expect(f.state()).toMatchObject({ status: 'finished', outcome: 'complete', choice: 'cleanup' });
  });
});
