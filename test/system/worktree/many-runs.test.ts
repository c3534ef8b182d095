import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Step } from '../../support/fake-agent.js';
import { quote, succeed } from '../../run/helpers.js';
import { ManyFixture, slowSucceed } from './many-fixture.js';

// `run a b c` (docs/contract.md, "Several changes at once"): one ralphtool, several loops, each
// change in a worktree of its own; spawned CLI, the executable fake agent, real git.

let fixture: ManyFixture | undefined;
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
});

const FAIL: Step[] = [{ say: 'cannot' }, { signal: 'FAILED: not possible' }];

function threeChanges(): ManyFixture {
  return new ManyFixture({ alpha: 2, beta: 2, gamma: 2 }).scenarios({
    alpha: {
      '1-1': slowSucceed('src/alpha1.txt', 'a1\n'),
      '2-1': slowSucceed('src/alpha2.txt', 'a2\n'),
    },
    beta: {
      '1-1': slowSucceed('src/beta1.txt', 'b1\n'),
      '2-1': slowSucceed('src/beta2.txt', 'b2\n'),
    },
    gamma: {
      '1-1': slowSucceed('src/gamma1.txt', 'g1\n'),
      '2-1': slowSucceed('src/gamma2.txt', 'g2\n'),
    },
  });
}

/** Every file of the user's work tree (outside .git) with its bytes. */
function snapshot(dir: string, below = ''): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(path.join(dir, below), { withFileTypes: true })) {
    const rel = path.join(below, entry.name);
    if (rel === '.git') continue;
    if (entry.isDirectory()) for (const [k, v] of snapshot(dir, rel)) files.set(k, v);
    else files.set(rel, readFileSync(path.join(dir, rel), 'latin1'));
  }
  return files;
}

describe('run a b c: several changes at once, each in its own worktree', () => {
  it('leaves the user files byte for byte while the user edits, adds and deletes them; each branch holds its own stories only', async () => {
    fixture = threeChanges();
    const f = fixture;
    f.write('.gitignore', 'secret.env\n');
    f.git('add', '.gitignore');
    f.git('commit', '-q', '-m', 'ignore secrets');
    f.write('secret.env', 'TOKEN=1\n');
    const mainBefore = f.sha('main');
    const live = f.spawn('run', [
      'alpha',
      'beta',
      'gamma',
      '--parallel',
      '3',
      '--on-complete',
      'keep',
    ]);
    // The user works in their own tree the whole time the runs go on.
    let round = 0;
    let ended = false;
    live.exited.then(
      () => {
        ended = true;
      },
      () => {
        ended = true;
      },
    );
    while (!ended || round < 30) {
      round += 1;
      f.write(`user/new-${round % 7}.txt`, `round ${round}\n`);
      f.write('src/app.txt', `app edited ${round}\n`);
      if (round % 3 === 0)
        rmSync(path.join(f.dir, `user/new-${(round + 1) % 7}.txt`), { force: true });
      if (round % 5 === 0) rmSync(path.join(f.dir, 'README.md'), { force: true });
      if (round % 5 === 1) writeFileSync(path.join(f.dir, 'README.md'), `readme ${round}\n`);
      await new Promise((resolve) => setTimeout(resolve, 15));
    }
    const expected = snapshot(f.dir);
    const exit = await live.exited;
    expect(exit.code, live.stderr).toBe(0);
    expect(snapshot(f.dir)).toEqual(expected);
    expect(f.read('secret.env')).toBe('TOKEN=1\n');
    expect(f.sha('main')).toBe(mainBefore);
    expect(f.currentBranch()).toBe('main');
    for (const change of f.changes) {
      expect(f.subjects(`main..ralph/${change}`)).toEqual([
        'initial state',
        'checkpoint: 1',
        'checkpoint: 2',
      ]);
      const touched = f.git('diff', '--name-only', 'main', `ralph/${change}`).trim().split('\n');
      expect(touched.sort()).toEqual(
        [`openspec/changes/${change}/tasks.md`, `src/${change}1.txt`, `src/${change}2.txt`].sort(),
      );
      expect(f.git('ls-tree', '-r', '--name-only', `ralph/${change}`)).not.toContain('secret.env');
    }
    // --json: every event line names its change; the merge check is one line of its own.
    const other = live.events.filter((e) => e.type !== 'merge.checked');
    expect(other.length).toBeGreaterThan(10);
    expect(other.every((e) => typeof e.change === 'string' && f.changes.includes(e.change))).toBe(
      true,
    );
    const merge = live.events.filter((e) => e.type === 'merge.checked');
    expect(merge, live.stderr).toHaveLength(1);
    expect(merge[0]).toMatchObject({
      against: 'main',
      checked: ['alpha', 'beta', 'gamma'],
      conflicts: [],
    });
    // The merge check comes after every loop ended, before the first completion is applied.
    const types = live.events.map((e) => `${e.type}:${String(e.change)}`);
    const mergeAt = live.types().indexOf('merge.checked');
    for (const change of f.changes) {
      expect(types.indexOf(`story.completed:${change}`)).toBeLessThan(mergeAt);
      expect(types.indexOf(`run.finished:${change}`)).toBeGreaterThan(mergeAt);
    }
  }, 240_000);

  it('applies no completion and checks no merge before every loop has ended', async () => {
    fixture = new ManyFixture({ alpha: 1, beta: 1, gamma: 1 });
    const f = fixture;
    const gate = path.join(f.scratch, 'gamma-may-finish');
    f.scenarios({
      alpha: { '1-1': succeed('src/alpha.txt', 'a\n') },
      beta: { '1-1': succeed('src/beta.txt', 'b\n') },
      gamma: { '1-1': [{ waitFor: gate }, ...succeed('src/gamma.txt', 'g\n')] },
    });
    const live = f.spawn('run', [
      'alpha',
      'beta',
      'gamma',
      '--parallel',
      '3',
      '--on-complete',
      'keep',
    ]);
    for (const change of ['alpha', 'beta']) {
      await live.waitFor((e) => e.type === 'run.awaiting-choice' && e.change === change);
    }
    writeFileSync(gate, '');
    expect((await live.exited).code, live.stderr).toBe(0);
    const seen = live.events.map(
      (e) => `${e.type}:${typeof e.change === 'string' ? e.change : ''}`,
    );
    const gammaDone = seen.indexOf('story.completed:gamma');
    expect(gammaDone).toBeGreaterThan(-1);
    expect(seen.indexOf('merge.checked:')).toBeGreaterThan(gammaDone);
    for (const change of f.changes) {
      expect(seen.indexOf(`run.finished:${change}`)).toBeGreaterThan(
        seen.indexOf('merge.checked:'),
      );
    }
  }, 240_000);

  it('--on-complete cleanup brings every run home, one after another, next to the user work', async () => {
    fixture = new ManyFixture({ alpha: 2, beta: 1, gamma: 1 }).scenarios({
      alpha: { '1-1': succeed('src/alpha1.txt', 'a1\n'), '2-1': succeed('src/alpha2.txt', 'a2\n') },
      beta: { '1-1': succeed('src/beta.txt', 'b\n') },
      gamma: { '1-1': succeed('src/gamma.txt', 'g\n') },
    });
    const f = fixture;
    f.write('notes.txt', 'mine\n');
    f.write('src/app.txt', 'app v1, edited by me\n');
    const head = f.sha('HEAD');
    const result = await f.cli('run', ['alpha', 'beta', 'gamma', '--on-complete', 'cleanup']);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(f.sha('HEAD')).toBe(head);
    expect(f.currentBranch()).toBe('main');
    expect(f.read('notes.txt')).toBe('mine\n');
    expect(f.read('src/app.txt')).toBe('app v1, edited by me\n');
    for (const [file, content] of [
      ['src/alpha1.txt', 'a1\n'],
      ['src/alpha2.txt', 'a2\n'],
      ['src/beta.txt', 'b\n'],
      ['src/gamma.txt', 'g\n'],
    ]) {
      expect(f.read(file ?? '')).toBe(content);
    }
    for (const change of f.changes) {
      expect(f.read(`openspec/changes/${change}/tasks.md`)).not.toContain('- [ ]');
      expect(f.runState(change)).toMatchObject({ status: 'finished', choice: 'cleanup' });
    }
    // Every worktree given back: their folder beside the repository goes with the last one.
    expect(existsSync(`${f.dir}.ralph`)).toBe(false);
  }, 240_000);

  it('starts many worktrees at once without tripping over each other (git worktree add)', async () => {
    const names = ['c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8'];
    fixture = new ManyFixture(Object.fromEntries(names.map((n) => [n, 1]))).scenarios(
      Object.fromEntries(names.map((n) => [n, { '1-1': succeed(`src/${n}.txt`, `${n}\n`) }])),
    );
    const f = fixture;
    const result = await f.cli('run', [...names, '--parallel', '8', '--on-complete', 'keep']);
    expect(result.stderr).not.toContain('could not create the worktree');
    expect(result.exitCode, result.stderr).toBe(0);
    for (const name of names) {
      expect(f.subjects(`main..ralph/${name}`)).toEqual(['initial state', 'checkpoint: 1']);
    }
  }, 240_000);

  it('one change out of retries, the others complete: exit 3, each says how it ended', async () => {
    fixture = new ManyFixture({ alpha: 1, beta: 2, gamma: 1 }).scenarios({
      alpha: { '1-1': succeed('src/alpha.txt', 'a\n') },
      beta: { '1-*': FAIL },
      gamma: { '1-1': succeed('src/gamma.txt', 'g\n') },
    });
    const f = fixture;
    const result = await f.cli('run', [
      'alpha',
      'beta',
      'gamma',
      '--max-retries',
      '2',
      '--on-complete',
      'keep',
    ]);
    expect(result.exitCode, result.stderr).toBe(3);
    const summary = result.stdout.slice(result.stdout.indexOf('several runs:'));
    expect(summary).toMatch(/alpha: complete · stories 1\/1 .*\(exit 0\)/);
    expect(summary).toMatch(/beta: max-retries · stories 0\/2 .*\(exit 3\)/);
    expect(summary).toMatch(/gamma: complete · stories 1\/1 .*\(exit 0\)/);
    expect(summary).toContain('merge check against main');
    expect(f.subjects('main..ralph/alpha')).toEqual(['initial state', 'checkpoint: 1']);
    expect(f.subjects('main..ralph/gamma')).toEqual(['initial state', 'checkpoint: 1']);
    expect(f.subjects('main..ralph/beta')).toEqual(['initial state']);
    // Every progress line says whose it is.
    const progress = result.stdout
      .slice(0, result.stdout.indexOf('several runs:'))
      .trim()
      .split('\n');
    expect(progress.every((line) => /^\[(alpha|beta|gamma)\]/.test(line))).toBe(true);
  }, 240_000);

  it('a refused run (an unfinished run recorded) ends alone: the others run, exit 2', async () => {
    fixture = new ManyFixture({ alpha: 1, beta: 1 }).scenarios({
      alpha: { '1-1': succeed('src/alpha.txt', 'a\n') },
      beta: { '1-1': FAIL, '1-*': FAIL },
    });
    const f = fixture;
    // beta ends blocked-free but unfinished: out of retries and kept, its run stays recorded.
    const first = await f.cli('run', [
      'beta',
      '--worktree',
      '--max-retries',
      '1',
      '--on-complete',
      'keep',
    ]);
    expect(first.exitCode, first.stderr).toBe(3);
    const betaBranch = f.sha('ralph/beta');
    const result = await f.cli('run', ['alpha', 'beta', '--on-complete', 'keep']);
    expect(result.exitCode, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/\[beta\] .*resume beta/);
    expect(result.stdout).toMatch(/alpha: complete · stories 1\/1/);
    expect(result.stdout).toMatch(/beta: .*\(exit 2\)/);
    expect(f.subjects('main..ralph/alpha')).toEqual(['initial state', 'checkpoint: 1']);
    expect(f.sha('ralph/beta')).toBe(betaBranch);
  }, 240_000);

  it('--notify tells of each run on its own, naming its change', async () => {
    fixture = new ManyFixture({ alpha: 1, beta: 1 }).scenarios({
      alpha: { '1-1': succeed('src/alpha.txt', 'a\n') },
      beta: { '1-1': succeed('src/beta.txt', 'b\n') },
    });
    const f = fixture;
    const heard = path.join(f.scratch, 'heard.txt');
    const program = path.join(f.scratch, 'notify.mjs');
    writeFileSync(
      program,
      `import { appendFileSync } from 'node:fs';\nappendFileSync(${JSON.stringify(heard)}, process.env.RALPHTOOL_CHANGE + ' ' + process.env.RALPHTOOL_EVENT + '\\n');\n`,
    );
    const result = await f.cli('run', [
      'alpha',
      'beta',
      '--on-complete',
      'keep',
      '--notify',
      `${quote(process.execPath)} ${quote(program)}`,
    ]);
    expect(result.exitCode, result.stderr).toBe(0);
    const lines = readFileSync(heard, 'utf8').trim().split('\n').sort();
    expect(lines).toEqual(['alpha run.finished', 'beta run.finished']);
  }, 240_000);

  it('run --all takes every change with stories left and says which it leaves out and why', async () => {
    fixture = new ManyFixture({ alpha: 1, beta: 1, done: 1 }).scenarios({
      alpha: { '1-1': succeed('src/alpha.txt', 'a\n') },
      beta: { '1-1': succeed('src/beta.txt', 'b\n') },
    });
    const f = fixture;
    const tasks = 'openspec/changes/done/tasks.md';
    f.write(tasks, f.read(tasks).replace('- [ ]', '- [x]'));
    f.git('commit', '-qam', 'done is done');
    const result = await f.cli('run', ['--all', '--on-complete', 'keep']);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toContain('--all leaves out done: all 1 stories done');
    expect(f.subjects('main..ralph/alpha')).toEqual(['initial state', 'checkpoint: 1']);
    expect(f.subjects('main..ralph/beta')).toEqual(['initial state', 'checkpoint: 1']);
    expect(f.branchExists('ralph/done')).toBe(false);
  }, 240_000);

  it.each([
    [['alpha', 'beta', '--parallel', '0'], /--parallel/],
    [['alpha', 'beta', '--parallel', 'x'], /--parallel/],
    [['alpha', '--all'], /--all/],
    [['alpha', 'alpha'], /named twice/],
    [['alpha', 'nosuch'], /nosuch/],
  ])('bad input %j: exit 2, one line, nothing touched', async (args, message) => {
    fixture ??= new ManyFixture({ alpha: 1, beta: 1 }).scenarios({});
    const f = fixture;
    const refs = f.git('for-each-ref');
    const status = f.status();
    const result = await f.cli('run', args);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(f.git('for-each-ref')).toBe(refs);
    expect(f.status()).toEqual(status);
    expect(existsSync(`${f.dir}.ralph`)).toBe(false);
    expect(existsSync(path.join(f.dir, '.git', 'ralphtool', 'alpha', 'state.json'))).toBe(false);
  });
});
