import { existsSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { Step } from '../../support/fake-agent.js';
import { fakeAgentFlags } from '../../support/fake-agent.js';
import { killGroup, recordedAgentGroup } from '../../support/processes.js';
import { runCli } from '../../support/cli.js';
import { succeed } from '../../run/helpers.js';
import { ManyFixture } from './many-fixture.js';

// Issue 30, "Done when": three changes, two of them colliding. Without --resolve-conflicts two
// come home and the third is kept (many-conflict.test.ts); with it, the third's agent gets one
// more story — bring the branch onto the user's work tree — judged like any (its ticks, COMPLETE,
// no conflict marker left), then it comes home. An agent that does not resolve it leaves the
// change kept as before; a kill -9 mid-way is explained by `status` and finished by `resume`.
// The user's uncommitted, untracked and ignored files stay byte for byte on every path.

let fixture: ManyFixture | undefined;
const strays: number[] = [];
afterEach(() => {
  for (const pgid of strays.splice(0)) killGroup(pgid);
  fixture?.remove();
  fixture = undefined;
});

const editApp = (line: string): Step[] => [
  { write: 'src/app.txt', content: `${line}\n` },
  { tick: 'all' },
  { signal: 'COMPLETE' },
];

/** The resolve story done: both sides kept, no marker left, its task ticked. */
const resolveBoth: Step[] = [
  { write: 'src/app.txt', content: 'app by alpha\napp by beta\n' },
  { tick: 'all' },
  { signal: 'COMPLETE' },
];

function threeChanges(resolve: Record<string, Step[]>): ManyFixture {
  const f = new ManyFixture(
    { alpha: 1, beta: 1, gamma: 1 },
    { 'src/app.txt': 'app v1\n', 'README.txt': 'readme v1\n', '.gitignore': '*.env\n' },
  ).scenarios({
    alpha: { '1-1': editApp('app by alpha') },
    beta: { '1-1': [{ sleep: 300 }, ...editApp('app by beta')], ...resolve },
    gamma: { '1-1': succeed('src/gamma.txt', 'g\n') },
  });
  // The user's own files: an uncommitted edit, an untracked file, an ignored one.
  f.write('README.txt', 'readme edited by me\n');
  f.write('notes.txt', 'mine\n');
  f.write('local.env', 'SECRET=1\n');
  return f;
}

function userFilesIntact(f: ManyFixture, head: string): void {
  expect(f.read('README.txt')).toBe('readme edited by me\n');
  expect(f.read('notes.txt')).toBe('mine\n');
  expect(f.read('local.env')).toBe('SECRET=1\n');
  expect(f.sha('HEAD')).toBe(head);
  expect(f.git('diff', '--cached', '--name-only')).toBe('');
}

function finishedOf(stdout: string, change: string): Record<string, unknown> | undefined {
  return stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .find((l) => l.type === 'run.finished' && l.change === change);
}

describe('run a b c --on-complete cleanup --resolve-conflicts', () => {
  it('the colliding change gets one more story, its agent resolves the markers, and it comes home; the summary says so', async () => {
    fixture = threeChanges({ '2-1': resolveBoth });
    const f = fixture;
    const head = f.sha('HEAD');
    const result = await f.cli('run', [
      'alpha',
      'beta',
      'gamma',
      '--on-complete',
      'cleanup',
      '--resolve-conflicts',
    ]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).not.toContain('[beta] kept');
    expect(result.stdout).toContain(
      '[beta]   ⇆ the work collides with your work tree in src/app.txt: story 2 (Bring this change onto your work tree) brings the branch onto it (--resolve-conflicts)',
    );
    const summary = result.stdout.slice(result.stdout.indexOf('several runs:'));
    expect(summary).toMatch(/ alpha: complete .* · came home into your work tree \(exit 0\)/);
    expect(summary).toMatch(
      / beta: complete · stories 2\/2 .* · came home into your work tree after its agent resolved the conflicts \(src\/app\.txt\) \(exit 0\)/,
    );
    expect(summary).toMatch(/ gamma: complete .* · came home into your work tree \(exit 0\)/);
    // Both changes' work in the user's tree, uncommitted; beta's tasks.md with its extra story.
    expect(f.read('src/app.txt')).toBe('app by alpha\napp by beta\n');
    expect(f.read('src/gamma.txt')).toBe('g\n');
    expect(f.read('openspec/changes/beta/tasks.md')).toMatch(
      /## 2\. Bring this change onto your work tree\n\n- \[x\] 2\.1 Resolve the merge conflicts/,
    );
    userFilesIntact(f, head);
    expect(f.git('branch', '--list', 'ralph/*').trim()).toBe('');
    expect(f.runState('beta')).toMatchObject({ status: 'finished', choice: 'cleanup' });
    expect(existsSync(f.worktree('beta'))).toBe(false);
  }, 240_000);

  it('an agent that leaves the markers fails the story every time: the change is kept as it was, the user files intact (--json)', async () => {
    // COMPLETE with the task ticked, the conflict left in the file.
    fixture = threeChanges({ '2-*': [{ tick: 'all' }, { signal: 'COMPLETE' }] });
    const f = fixture;
    const head = f.sha('HEAD');
    const beforeBeta = (): string => f.git('rev-parse', 'ralph/beta').trim();
    const result = await f.cli('run', [
      'alpha',
      'beta',
      'gamma',
      '--on-complete',
      'cleanup',
      '--resolve-conflicts',
      '--max-retries',
      '1',
      '--json',
    ]);
    expect(result.exitCode, result.stderr).toBe(0);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const failures = lines.filter((l) => l.type === 'attempt.failed' && l.change === 'beta');
    expect(failures).toHaveLength(2);
    expect(failures[0]).toMatchObject({
      storyId: '2',
      kind: 'conflict-markers',
      reason: expect.stringContaining('conflict markers are left in src/app.txt') as unknown,
    });
    expect(lines.find((l) => l.type === 'resolve.dropped')).toMatchObject({
      change: 'beta',
      storyId: '2',
    });
    expect(finishedOf(result.stdout, 'beta')).toMatchObject({
      outcome: 'complete',
      choice: 'keep',
      storiesCompleted: 1,
      storiesTotal: 1,
    });
    // The branch is back at beta's own checkpoint: no merge, no markers, no extra story.
    expect(f.git('show', 'ralph/beta:src/app.txt')).toBe('app by beta\n');
    expect(f.git('log', '--format=%s', 'ralph/beta', '-1').trim()).toBe('checkpoint: 1');
    expect(f.git('show', 'ralph/beta:openspec/changes/beta/tasks.md')).not.toContain('## 2.');
    expect(beforeBeta()).toBe(f.git('rev-parse', 'ralph/beta').trim());
    expect(f.read('src/app.txt')).toBe('app by alpha\n');
    expect(f.read('src/gamma.txt')).toBe('g\n');
    userFilesIntact(f, head);
    expect(f.runState('beta')).toMatchObject({ status: 'finished', choice: 'keep', resolve: null });
  }, 240_000);

  it('the plain summary says why it was kept', async () => {
    fixture = threeChanges({ '2-*': [{ signal: 'FAILED: cannot tell which side wins' }] });
    const f = fixture;
    const result = await f.cli('run', [
      'alpha',
      'beta',
      'gamma',
      '--on-complete',
      'cleanup',
      '--resolve-conflicts',
      '--max-retries',
      '0',
    ]);
    expect(result.exitCode, result.stderr).toBe(0);
    const summary = result.stdout.slice(result.stdout.indexOf('several runs:'));
    expect(summary).toMatch(
      / beta: complete · stories 1\/1 .* · kept on ralph\/beta: collides with your work tree \(src\/app\.txt\) and its agent did not resolve it: its 1 attempts failed \(last: failed-signal\) \(exit 0\)/,
    );
    expect(f.git('show', 'ralph/beta:src/app.txt')).toBe('app by beta\n');
  }, 240_000);

  it('kill -9 during the extra story: status explains, resume --all finishes it and it comes home', async () => {
    fixture = threeChanges({
      '2-1': [{ say: 'resolving' }, { hang: true }],
      '2-*': resolveBoth,
    });
    const f = fixture;
    const head = f.sha('HEAD');
    const live = f.spawn('run', [
      'alpha',
      'beta',
      'gamma',
      '--on-complete',
      'cleanup',
      '--resolve-conflicts',
    ]);
    await live.waitFor((e) => e.type === 'agent.message' && e.text === 'resolving');
    const pgid = await recordedAgentGroup(() => f.runState('beta'));
    await live.kill9();
    strays.push(pgid);

    // Mid-way: the branch is on the user's tree with the markers, the record says why.
    expect(f.runState('beta')).toMatchObject({
      currentStory: '2',
      resolve: { storyId: '2', files: ['src/app.txt'] },
    });
    const status = await runCli(['status'], { cwd: f.dir, env: f.env() });
    expect(status.stdout).toContain(
      '  bringing its work onto your work tree (story 2, --resolve-conflicts): conflicts in src/app.txt',
    );
    expect(status.stdout).toContain('ralphtool resume beta');
    userFilesIntact(f, head);

    const resumed = await runCli(
      ['resume', '--all', '--on-complete', 'cleanup', ...fakeAgentFlags()],
      { cwd: f.dir, env: f.env(), timeoutMs: 240_000 },
    );
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(f.read('src/app.txt')).toBe('app by alpha\napp by beta\n');
    expect(f.read('src/gamma.txt')).toBe('g\n');
    expect(f.runState('beta')).toMatchObject({ status: 'finished', choice: 'cleanup' });
    userFilesIntact(f, head);
  }, 240_000);
});

describe('one change in a worktree: run <change> --worktree --on-complete cleanup --resolve-conflicts', () => {
  it('the user edits the same line meanwhile: the agent brings its work onto theirs and it comes home', async () => {
    fixture = new ManyFixture({ alpha: 1 }, { 'src/app.txt': 'app v1\n' });
    const f = fixture;
    const go = `${f.scratch}/go`;
    f.scenarios({
      alpha: {
        '1-1': [{ say: 'working' }, { waitFor: go }, ...editApp('app by alpha')],
        '2-1': [
          { write: 'src/app.txt', content: 'app by me\napp by alpha\n' },
          { tick: 'all' },
          { signal: 'COMPLETE' },
        ],
      },
    });
    f.write('notes.txt', 'mine\n');
    const head = f.sha('HEAD');
    const live = f.spawn('run', [
      'alpha',
      '--worktree',
      '--on-complete',
      'cleanup',
      '--resolve-conflicts',
    ]);
    await live.waitFor((e) => e.type === 'agent.message' && e.text === 'working');
    // The user edits the very line the run is about to change.
    f.write('src/app.txt', 'app by me\n');
    writeFileSync(go, '');
    const exited = await live.exited;
    expect(exited.code, live.stderr).toBe(0);
    expect(live.types()).toContain('resolve.started');
    const finished = live.events.find((e) => e.type === 'run.finished');
    expect(finished).toMatchObject({ outcome: 'complete', choice: 'cleanup', storiesTotal: 2 });
    expect(f.read('src/app.txt')).toBe('app by me\napp by alpha\n');
    expect(f.read('notes.txt')).toBe('mine\n');
    expect(f.sha('HEAD')).toBe(head);
    expect(f.git('branch', '--list', 'ralph/*').trim()).toBe('');
  }, 240_000);
});
