import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../support/cli.js';
import { printedCommands } from '../../support/printed-command.js';
import { RunFixture, single, stories, succeed, type Step } from '../../run/helpers.js';

// docs/contract.md, "The review": once every story is accepted, a fresh reviewer (here the
// executable fake agent, scripted per round under `review-<round>`) judges the change against
// every scenario of its specs; rejected, the work agent gets a fix attempt (`review-<round>-1`),
// accepted as its own checkpoint, then a new review; never approved, the run ends resumable
// (outcome not-approved, exit 6) and the printed way on works as printed.

const CHANGE = 'reviewed';

const APPROVE: Step[] = [
  { say: '- [MET] Demo / Works: src/x.txt holds the work' },
  { signal: 'APPROVED' },
];
const REJECT: Step[] = [
  { write: 'src/reviewer-was-here.txt', content: 'an edit the reviewer may not make\n' },
  { say: '- [NOT MET] Demo / Works: src/fix.txt is missing' },
  { signal: 'REJECTED: src/fix.txt is missing' },
];
const FIX: Step[] = [{ write: 'src/fix.txt', content: 'fixed\n' }, { signal: 'COMPLETE' }];

let fixture: RunFixture | undefined;
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
});

function types(events: { type: string }[]): string[] {
  return events.map((e) => e.type).filter((t) => t.startsWith('review.') || t === 'run.finished');
}

describe('run --review', () => {
  it('ends complete when the reviewer approves, with its verdict per scenario', async () => {
    const f = (fixture = new RunFixture(CHANGE, stories(1)).scenario({
      '1-1': succeed('src/x.txt', 'x\n'),
      'review-1': APPROVE,
    }));
    const run = await f.run(['--json', '--review', '--on-complete', 'keep']);
    expect(run.exitCode, run.stderr).toBe(0);
    const events = run.events();
    expect(types(events)).toEqual(['review.started', 'review.finished', 'run.finished']);
    expect(single(events, 'review.started')).toMatchObject({
      round: 1,
      maxRounds: 2,
      reviewer: 'command',
    });
    expect(single(events, 'review.finished')).toMatchObject({
      verdict: 'approved',
      reasons: null,
      revertedRef: null,
      scenarios: [
        { requirement: 'Demo', scenario: 'Works', met: true, note: 'src/x.txt holds the work' },
      ],
    });
    expect(single(events, 'run.finished')).toMatchObject({ outcome: 'complete' });
    // The reviewer got the change: its scenarios, the diff, the verdict it must end with.
    const prompt = f.prompt('review', 1);
    expect(prompt).toContain('Requirement: Demo');
    expect(prompt).toContain('- Scenario: Works');
    expect(prompt).toContain('+x');
    expect(prompt).toContain('<promise>APPROVED</promise>');
    // The pull request's body carries the verdict per scenario with its evidence.
    const report = await runCli(['report', CHANGE, '--markdown'], { cwd: f.dir, env: f.env() });
    expect(report.stdout).toContain('### Independent review');
    expect(report.stdout).toContain('✅ approved (round 1)');
    expect(report.stdout).toContain('| demo: Demo | Works | ✅ met | src/x.txt holds the work |');
  });

  it('rejected: a fix attempt with the reasons, its own checkpoint, then a new review approves', async () => {
    const f = (fixture = new RunFixture(CHANGE, stories(1)).scenario({
      '1-1': succeed('src/x.txt', 'x\n'),
      'review-1': REJECT,
      'review-1-1': FIX,
      'review-2': APPROVE,
    }));
    const run = await f.run(['--json', '--review', '--on-complete', 'keep']);
    expect(run.exitCode, run.stderr).toBe(0);
    const events = run.events();
    expect(types(events)).toEqual([
      'review.started',
      'review.finished',
      'review.started',
      'review.finished',
      'run.finished',
    ]);
    const first: Record<string, unknown> = events.find((e) => e.type === 'review.finished') ?? {};
    expect(first).toMatchObject({
      verdict: 'rejected',
      reasons: 'src/fix.txt is missing',
      scenarios: [{ scenario: 'Works', met: false, note: 'src/fix.txt is missing' }],
    });
    expect(String(first.revertedRef)).toContain('review-1');
    // The fix attempt was told the reasons, and is a checkpoint of its own.
    expect(f.prompt('review-1', 1)).toContain('src/fix.txt is missing');
    expect(f.git('log', '--format=%s', `ralph/${CHANGE}`).split('\n').slice(0, 2)).toEqual([
      'checkpoint: review-1',
      'checkpoint: 1',
    ]);
    // What the reviewer wrote is reverted, kept under the ref the event names.
    const tree = f.git('ls-tree', '-r', '--name-only', `ralph/${CHANGE}`);
    expect(tree).toContain('src/fix.txt');
    expect(tree).not.toContain('src/reviewer-was-here.txt');
    expect(f.git('show', `${String(first.revertedRef)}:src/reviewer-was-here.txt`)).toContain(
      'reviewer',
    );
  });

  it('never approved: ends resumable (not-approved, exit 6); the printed resume reviews again', async () => {
    const f = (fixture = new RunFixture(CHANGE, stories(1)).scenario({
      '1-1': succeed('src/x.txt', 'x\n'),
      'review-1': REJECT,
      'review-1-1': FIX,
      'review-2': REJECT,
    }));
    const run = await f.run(['--review', '--on-complete', 'keep']);
    expect(run.exitCode, run.stderr).toBe(6);
    expect(run.stdout).toContain('not approved: the independent review rejected the change');
    const [resume] = printedCommands(run.stdout, 'ralphtool');
    expect(resume).toEqual(['resume', CHANGE]);
    expect(f.state()).toMatchObject({ outcome: 'not-approved' });

    // The printed way on, as printed: the run goes on with its recorded review.
    f.scenario({ 'review-1': APPROVE });
    const resumed = await runCli(resume ?? [], { cwd: f.dir, env: f.env() });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain('the review approved the change');
    expect(f.state()).toMatchObject({ outcome: 'complete' });
  });

  it('--max-review-rounds 0 turns the review off', async () => {
    const f = (fixture = new RunFixture(CHANGE, stories(1)).scenario({
      '1-1': succeed('src/x.txt', 'x\n'),
    }));
    const run = await f.run([
      '--json',
      '--review',
      '--max-review-rounds',
      '0',
      '--on-complete',
      'keep',
    ]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(types(run.events())).toEqual(['run.finished']);
  });
});
