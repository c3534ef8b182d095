import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LoopHarness } from '../support/loop-harness.js';
import { loopTypes, ofType, quote, single, stories, type Step } from './helpers.js';

// The verify ratchet (docs/contract.md, "The verify ratchet"), on the real loop with real verify
// commands: a node script that passes when src/state.txt says "ok".

const CHANGE = 'ratchet-change';
const NODE = quote(process.execPath);
const TOLERATED_LINE = 'already fails before your work';

let fixture: LoopHarness | undefined;
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
});

/** The check `node <scratch>/check.mjs`: passes when src/state.txt says "ok". */
function writeCheck(f: LoopHarness): string {
  const check = path.join(f.scratch, 'check.mjs');
  writeFileSync(
    check,
    [
      "import { existsSync, readFileSync } from 'node:fs';",
      "const text = existsSync('src/state.txt') ? readFileSync('src/state.txt', 'utf8') : '(none)';",
      "if (text !== 'ok\\n') { console.error(`check: src/state.txt says ${text.trim()}`); process.exit(1); }",
    ].join('\n'),
  );
  return `${NODE} ${quote(check)}`;
}

/** A story attempt that leaves src/state.txt saying `state`, ticks its tasks and says COMPLETE. */
function leaving(state: string): Step[] {
  return [
    { write: 'src/state.txt', content: `${state}\n` },
    { tick: 'all' },
    { signal: 'COMPLETE' },
  ];
}

describe('the verify ratchet', () => {
  it('a check failing before the run, still failing after the story: accepted, reported as tolerated', async () => {
    fixture = new LoopHarness(CHANGE, stories(1));
    const f = fixture;
    const check = writeCheck(f);
    const passing = `${NODE} -e "process.exit(0)"`;
    f.scenario({ '1-1': leaving('still broken') });
    // The tolerated check comes first: its failure does not stop the next command.
    const result = await f.run({ maxRetries: 0, verify: [check, passing], completion: 'keep' });
    expect(result.exitCode).toBe(0);
    const events = result.events();
    expect(loopTypes(events).slice(0, 3)).toEqual([
      'run.started',
      'verify.baseline',
      'story.started',
    ]);
    expect(single(events, 'verify.baseline').results).toEqual([
      { command: check, passed: false },
      { command: passing, passed: true },
    ]);
    expect(ofType(events, 'attempt.failed')).toEqual([]);
    expect(single(events, 'story.completed').verify).toEqual([
      { command: check, passed: false, tolerated: true },
      { command: passing, passed: true },
    ]);
    expect(f.git('show', `ralph/${CHANGE}:src/state.txt`)).toBe('still broken\n');
    expect(f.state().verify).toEqual([
      { command: check, baselinePassed: false, passedOnce: false },
      { command: passing, baselinePassed: true, passedOnce: true },
    ]);
    // The agent is told, in one line, that this check fails already.
    const prompt = f.prompt('1', 1);
    expect(prompt).toContain(`\`${check}\` ${TOLERATED_LINE}`);
    expect(prompt).not.toContain(`\`${passing}\` ${TOLERATED_LINE}`);
  });

  it('failing before the run, passed by story 1, broken by story 2: a regression fails story 2', async () => {
    fixture = new LoopHarness(CHANGE, stories(2));
    const f = fixture;
    const check = writeCheck(f);
    f.scenario({ '1-1': leaving('ok'), '2-1': leaving('broken again') });
    const result = await f.run({ maxRetries: 0, verify: [check], completion: 'keep' });
    expect(result.outcome).toBe('max-retries');
    expect(result.exitCode).toBe(3);
    const events = result.events();
    expect(single(events, 'verify.baseline').results).toEqual([{ command: check, passed: false }]);
    expect(single(events, 'story.completed')).toMatchObject({
      storyId: '1',
      verify: [{ command: check, passed: true }],
    });
    const failed = single(events, 'attempt.failed');
    expect(failed).toMatchObject({ storyId: '2', attempt: 1, kind: 'verify-failed' });
    expect(failed.verify).toEqual([{ command: check, passed: false }]);
    expect(failed.reason).toContain('src/state.txt says broken again');
    expect(f.state().verify).toEqual([{ command: check, baselinePassed: false, passedOnce: true }]);
    expect(f.git('show', `ralph/${CHANGE}:src/state.txt`)).toBe('ok\n');
    // Story 1 was told the check fails already; story 2, after story 1 fixed it, is not.
    expect(f.prompt('1', 1)).toContain(TOLERATED_LINE);
    expect(f.prompt('2', 1)).not.toContain(TOLERATED_LINE);
  });

  it('passing before the run, broken by the story: the attempt fails', async () => {
    fixture = new LoopHarness(CHANGE, stories(1), { 'src/state.txt': 'ok\n' });
    const f = fixture;
    const check = writeCheck(f);
    f.scenario({ '1-1': leaving('broken') });
    const result = await f.run({ maxRetries: 0, verify: [check], completion: 'keep' });
    expect(result.exitCode).toBe(3);
    const events = result.events();
    expect(single(events, 'verify.baseline').results).toEqual([{ command: check, passed: true }]);
    const failed = single(events, 'attempt.failed');
    expect(failed).toMatchObject({ kind: 'verify-failed' });
    expect(failed.verify).toEqual([{ command: check, passed: false }]);
    expect(ofType(events, 'story.completed')).toEqual([]);
    expect(f.prompt('1', 1)).not.toContain(TOLERATED_LINE);
  });

  it('--verify-strict: no baseline, and a check failing before the run blocks from the first attempt', async () => {
    fixture = new LoopHarness(CHANGE, stories(1));
    const f = fixture;
    const check = writeCheck(f);
    f.scenario({ '1-1': leaving('still broken') });
    const result = await f.run({
      maxRetries: 0,
      verify: [check],
      completion: 'keep',
      options: { verifyStrict: true },
    });
    expect(result.exitCode).toBe(3);
    const events = result.events();
    expect(ofType(events, 'verify.baseline')).toEqual([]);
    const failed = single(events, 'attempt.failed');
    expect(failed).toMatchObject({ kind: 'verify-failed' });
    expect(failed.verify).toEqual([{ command: check, passed: false }]);
    expect(f.state().verify).toBeUndefined();
    expect(f.prompt('1', 1)).not.toContain(TOLERATED_LINE);
  });

  it('without --verify there is no baseline and nothing recorded', async () => {
    fixture = new LoopHarness(CHANGE, stories(1));
    const f = fixture;
    f.scenario({ '1-1': leaving('anything') });
    const result = await f.run({ maxRetries: 0, completion: 'keep' });
    expect(result.exitCode).toBe(0);
    expect(ofType(result.events(), 'verify.baseline')).toEqual([]);
    expect(single(result.events(), 'story.completed').verify).toBeUndefined();
    expect(f.state().verify).toBeUndefined();
  });
});
