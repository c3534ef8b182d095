import { afterEach, describe, expect, it } from 'vitest';
import type { Step } from '../../support/fake-agent.js';
import { succeed } from '../../run/helpers.js';
import { ManyFixture } from './many-fixture.js';

// Changes that edit the same lines (issue 12, section 3; issue 30): the merge check reports the
// pair before anything is merged, and `--on-complete cleanup` brings home, in the order given,
// every change that applies onto what came home before it: the first of the pair comes home, the
// second is kept on its branch (saying with what it collides); the user's files untouched.

let fixture: ManyFixture | undefined;
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
});

const editApp = (line: string): Step[] => [
  { write: 'src/app.txt', content: `${line}\n` },
  { tick: 'all' },
  { signal: 'COMPLETE' },
];

function collidingPair(): ManyFixture {
  return new ManyFixture({ alpha: 1, beta: 1, gamma: 1 }, { 'src/app.txt': 'app v1\n' }).scenarios({
    alpha: { '1-1': editApp('app by alpha') },
    beta: { '1-1': editApp('app by beta') },
    gamma: { '1-1': succeed('src/gamma.txt', 'g\n') },
  });
}

describe('two changes that edit the same lines, run together with --on-complete cleanup', () => {
  it('the merge check names the pair; the first given comes home, the other is kept naming it (--json)', async () => {
    fixture = collidingPair();
    const f = fixture;
    f.write('notes.txt', 'mine\n');
    const head = f.sha('HEAD');

    const result = await f.cli('run', [
      'alpha',
      'beta',
      'gamma',
      '--on-complete',
      'cleanup',
      '--json',
    ]);
    expect(result.exitCode, result.stderr).toBe(0);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.find((l) => l.type === 'merge.checked')).toMatchObject({
      against: 'main',
      checked: ['alpha', 'beta', 'gamma'],
      conflicts: [{ a: 'alpha', b: 'beta', files: ['src/app.txt'] }],
      order: null,
    });
    expect(result.stderr).toContain(
      '[beta] kept on ralph/beta, not brought home: the merge check found it collides with alpha (src/app.txt)',
    );
    expect(result.stderr).not.toContain('[alpha] kept');
    const finished = (change: string): Record<string, unknown> | undefined =>
      lines.find((l) => l.type === 'run.finished' && l.change === change);
    expect(finished('alpha')).toMatchObject({ outcome: 'complete', choice: 'cleanup' });
    expect(finished('beta')).toMatchObject({ outcome: 'complete', choice: 'keep' });
    expect(f.git('show', 'ralph/beta:src/app.txt')).toBe('app by beta\n');
    // Alpha's and gamma's work in the user's tree, uncommitted; theirs byte for byte.
    expect(f.read('src/app.txt')).toBe('app by alpha\n');
    expect(f.read('src/gamma.txt')).toBe('g\n');
    expect(f.read('notes.txt')).toBe('mine\n');
    expect(f.sha('HEAD')).toBe(head);
    expect(f.runState('gamma')).toMatchObject({ status: 'finished', choice: 'cleanup' });
  }, 240_000);

  it('whichever run ends first, the order given decides; the summary says what came home and what was kept', async () => {
    fixture = new ManyFixture(
      { alpha: 1, beta: 1, gamma: 1 },
      { 'src/app.txt': 'app v1\n' },
    ).scenarios({
      // Beta, given first, ends last.
      alpha: { '1-1': editApp('app by alpha') },
      beta: { '1-1': [{ sleep: 1500 }, ...editApp('app by beta')] },
      gamma: { '1-1': succeed('src/gamma.txt', 'g\n') },
    });
    const f = fixture;
    const result = await f.cli('run', ['beta', 'gamma', 'alpha', '--on-complete', 'cleanup']);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(f.read('src/app.txt')).toBe('app by beta\n');
    expect(f.git('show', 'ralph/alpha:src/app.txt')).toBe('app by alpha\n');
    const summary = result.stdout.slice(result.stdout.indexOf('several runs:'));
    expect(summary).toMatch(/ beta: complete .* · came home into your work tree \(exit 0\)/);
    expect(summary).toMatch(/ gamma: complete .* · came home into your work tree \(exit 0\)/);
    expect(summary).toMatch(
      / alpha: complete .* · kept on ralph\/alpha: collides with beta \(src\/app\.txt\) \(exit 0\)/,
    );
  }, 240_000);

  it('a change that collides with the user uncommitted edit is kept; the others come home', async () => {
    fixture = new ManyFixture({ alpha: 1, gamma: 1 }, { 'src/app.txt': 'app v1\n' }).scenarios({
      alpha: { '1-1': [{ sleep: 300 }, ...editApp('app by alpha')] },
      gamma: { '1-1': succeed('src/gamma.txt', 'g\n') },
    });
    const f = fixture;
    const live = f.spawn('run', ['alpha', 'gamma', '--on-complete', 'cleanup']);
    // The user edits the same line while the run works.
    f.write('src/app.txt', 'app edited by me\n');
    const exited = await live.exited;
    expect(exited.code).toBe(0);
    expect(live.stderr).toContain(
      '[alpha] kept on ralph/alpha, not brought home: the merge check found it collides with your work tree (src/app.txt)',
    );
    expect(f.read('src/app.txt')).toBe('app edited by me\n');
    expect(f.read('src/gamma.txt')).toBe('g\n');
    expect(f.git('show', 'ralph/alpha:src/app.txt')).toBe('app by alpha\n');
  }, 240_000);
});
