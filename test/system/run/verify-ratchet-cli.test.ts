import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FaultWorld } from '../faults/support/world.js';
import {
  ofType,
  processGone,
  quote,
  RunFixture,
  single,
  stories,
  type Step,
} from '../../run/helpers.js';

// The verify ratchet through the real CLI: what the baseline leaves in the work tree, a resume
// that keeps what the run learnt, and the progress lines.

const CHANGE = 'ratchet-cli';
const NODE = quote(process.execPath);

let world: FaultWorld | RunFixture | undefined;
afterEach(() => {
  world?.remove();
  world = undefined;
});

/** A story attempt that leaves src/state.txt saying `state`, ticks its tasks and says COMPLETE. */
function leaving(state: string): Step[] {
  return [
    { write: 'src/state.txt', content: `${state}\n` },
    { tick: 'all' },
    { signal: 'COMPLETE' },
  ];
}

describe('the verify baseline in the work tree', () => {
  it('what the commands leave (untracked, or a changed tracked file) is saved and reverted; ignored files and the user’s files stay', async () => {
    const w = new FaultWorld(CHANGE, 1);
    world = w;
    // As `npm test` with coverage: writes a report that is not ignored, a cache that is (build/
    // is in .gitignore), rewrites a committed file (a snapshot), and fails.
    const check = path.join(w.scratch, 'check.mjs');
    writeFileSync(
      check,
      [
        "import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';",
        "mkdirSync('coverage', { recursive: true });",
        "writeFileSync('coverage/report.txt', 'covered 10%\\n');",
        "mkdirSync('build', { recursive: true });",
        "writeFileSync('build/cache.txt', 'cached\\n');",
        "appendFileSync('docs/stable.md', 'snapshot updated\\n');",
        'process.exit(1);',
      ].join('\n'),
    );
    // The story gives up: the check runs only at the baseline.
    w.scenario({
      '1-1': [{ write: 'src/try.txt', content: 'try\n' }, { signal: 'FAILED: cannot' }],
    });
    const result = await w.loop('run', ['--max-retries', '0', '--verify', `${NODE} ${check}`]);
    expect(result.exitCode, result.stderr).toBe(3);
    const events = result.events();
    expect(single(events, 'verify.baseline').results).toEqual([
      { command: `${NODE} ${check}`, passed: false },
    ]);
    const saved = `refs/ralphtool/${CHANGE}/attempts/verify-baseline-0`;

    // The leftovers are not the attempt's work, nor in a commit: kept under their own ref.
    const attemptFiles = w.treeFiles(`refs/ralphtool/${CHANGE}/attempts/1-1`);
    expect(attemptFiles).toContain('src/try.txt');
    expect(attemptFiles).not.toContain('coverage/report.txt');
    expect(w.git('show', `refs/ralphtool/${CHANGE}/attempts/1-1:docs/stable.md`)).toBe(
      'stable docs\n',
    );
    expect(w.treeFiles(w.branch)).not.toContain('coverage/report.txt');
    // Under their own name, not as an interrupted attempt's work.
    expect(
      w
        .git('for-each-ref', '--format=%(refname)', `refs/ralphtool/${CHANGE}/attempts/`)
        .split('\n'),
    ).toEqual([`refs/ralphtool/${CHANGE}/attempts/1-1`, saved, '']);
    const baselineFiles = w.treeFiles(saved);
    expect(baselineFiles).toContain('coverage/report.txt');
    expect(baselineFiles).not.toContain('build/cache.txt');
    expect(baselineFiles).not.toContain('.env');
    expect(w.git('show', `${saved}:docs/stable.md`)).toBe('stable docs\nsnapshot updated\n');
    // The user is told where they went.
    const warnings = ofType(events, 'error').filter((e) => String(e.message).includes(saved));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.fatal).toBe(false);

    // The tree is back at the checkpoint; the ignored cache and every user file are untouched.
    expect(existsSync(path.join(w.dir, 'coverage'))).toBe(false);
    expect(readFileSync(path.join(w.dir, 'build/cache.txt'), 'utf8')).toBe('cached\n');
    expect(w.userFilesChanged()).toEqual([]);
    expect(w.git('status', '--porcelain')).toBe('');
  });

  it('a baseline that changes nothing saves nothing', async () => {
    const w = new FaultWorld(CHANGE, 1);
    world = w;
    w.scenario({ '1-1': leaving('done') });
    const result = await w.loop('run', ['--verify', `${NODE} -e "process.exit(1)"`]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(ofType(result.events(), 'error')).toEqual([]);
    expect(w.git('for-each-ref', `refs/ralphtool/${CHANGE}/attempts/`)).toBe('');
    expect(w.userFilesChanged()).toEqual([]);
  });
});

describe('a stop during the baseline', () => {
  it('Ctrl-C while a --verify command runs at the baseline: it is killed, its leftovers saved and reverted, no attempt runs', async () => {
    const f = new RunFixture(CHANGE, stories(1));
    world = f;
    f.scenario({ '1-1': leaving('done') });
    const ready = path.join(f.logDir, 'baseline.pid');
    // As a slow test suite: writes a partial report, says it runs, and does not end.
    const slow = [
      "const fs = require('node:fs');",
      "fs.mkdirSync('coverage', { recursive: true });",
      "fs.writeFileSync('coverage/partial.txt', 'half\\n');",
      `fs.mkdirSync(${JSON.stringify(f.logDir)}, { recursive: true });`,
      `fs.writeFileSync(${JSON.stringify(ready)}, String(process.pid));`,
      'setInterval(() => {}, 1000);',
    ].join(' ');
    const live = f.spawn([
      '--json',
      '--on-complete',
      'keep',
      '--verify',
      `${NODE} -e ${quote(slow)}`,
    ]);
    await live.waitUntil(() => existsSync(ready) && readFileSync(ready, 'utf8') !== '');
    live.signal('SIGINT');
    const exit = await live.exited;
    expect(exit, live.stderr).toEqual({ code: 130, signal: null });
    expect(processGone(Number(readFileSync(ready, 'utf8')))).toBe(true);
    expect(single(live.events, 'run.finished')).toMatchObject({ outcome: 'stopped' });
    expect(live.types()).not.toContain('story.started');
    expect(live.types()).not.toContain('verify.baseline');
    expect(f.state().verify).toBeUndefined();
    expect(f.exists('coverage/partial.txt')).toBe(false);
    expect(f.status()).toEqual([]);
    expect(
      f.git('show', `refs/ralphtool/${CHANGE}/attempts/verify-baseline-0:coverage/partial.txt`),
    ).toBe('half\n');
  });
});

describe('resume and the ratchet', () => {
  it('a check that passed once keeps blocking after a resume, even when the resume’s baseline fails', async () => {
    const w = new FaultWorld(CHANGE, 2, { userFiles: false });
    world = w;
    // Passes when src/state.txt says ok, unless the outside world broke (the flag file).
    const flag = path.join(w.scratch, 'world-broken');
    const check = path.join(w.scratch, 'check.mjs');
    writeFileSync(
      check,
      [
        "import { existsSync, readFileSync } from 'node:fs';",
        `if (existsSync(${JSON.stringify(flag)})) { console.error('check: the world is broken'); process.exit(1); }`,
        "const text = existsSync('src/state.txt') ? readFileSync('src/state.txt', 'utf8') : '';",
        "process.exit(text === 'ok\\n' ? 0 : 1);",
      ].join('\n'),
    );
    const verify = ['--verify', `${NODE} ${check}`];
    w.scenario({ '1-1': leaving('ok'), '2-1': leaving('broken'), '2-2': leaving('ok') });

    // Fails before the run; story 1 makes it pass; story 2 breaks it and runs out of attempts.
    const first = await w.loop('run', ['--max-retries', '0', ...verify]);
    expect(first.exitCode, first.stderr).toBe(3);
    expect(single(first.events(), 'verify.baseline').results).toEqual([
      { command: `${NODE} ${check}`, passed: false },
    ]);
    expect(single(first.events(), 'attempt.failed')).toMatchObject({
      storyId: '2',
      kind: 'verify-failed',
    });
    expect(w.state().verify).toEqual([
      { command: `${NODE} ${check}`, baselinePassed: false, passedOnce: true },
    ]);

    // The check now fails at the checkpoint as well: the resume's baseline says so, but the
    // check has passed in this run, so a failure is still a regression.
    writeFileSync(flag, 'broken\n');
    const resumed = await w.loop('resume', ['--max-retries', '1', ...verify]);
    expect(resumed.exitCode, resumed.stderr).toBe(3);
    const events = resumed.events();
    expect(single(events, 'verify.baseline').results).toEqual([
      { command: `${NODE} ${check}`, passed: false },
    ]);
    const failed = single(events, 'attempt.failed');
    expect(failed).toMatchObject({ storyId: '2', attempt: 2, kind: 'verify-failed' });
    expect(failed.verify).toEqual([{ command: `${NODE} ${check}`, passed: false }]);
    expect(ofType(events, 'story.completed')).toEqual([]);
    expect(w.state().verify).toEqual([
      { command: `${NODE} ${check}`, baselinePassed: false, passedOnce: true },
    ]);
  });
});

describe('the progress lines', () => {
  it('say the baseline and a tolerated failure briefly', async () => {
    const f = new RunFixture(CHANGE, stories(1));
    world = f;
    f.scenario({ '1-1': leaving('still broken') });
    const failing = `${NODE} -e "process.exit(1)"`;
    const result = await f.run(['--on-complete', 'keep', '--verify', failing]);
    expect(result.exitCode, result.stderr).toBe(0);
    const out = result.stdout;
    expect(out).toContain(
      `verify baseline: ${failing} fails before the run: not blocking until it passes once`,
    );
    expect(out).toContain(`${failing} still fails as before the run: not blocking`);
    expect(out.indexOf('still fails as before')).toBeGreaterThan(out.indexOf('Story 1 done'));
  });
});
