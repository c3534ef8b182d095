import { afterEach, describe, expect, it } from 'vitest';
import { ProgressPrinter } from '../../src/cli/render/progress.js';
import { plainStyle } from '../../src/format/style.js';
import { LoopHarness } from '../support/loop-harness.js';
import { stories, succeed } from './helpers.js';
import { printed, row } from '../support/plain-output.js';

const CHANGE = 'plain-progress';

let fixture: LoopHarness | undefined;
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
});

describe('the plain progress printer on the loop’s events', () => {
  it('shows an exhausted story and the one never tried in the summary', async () => {
    fixture = new LoopHarness(CHANGE, stories(2)).scenario({
      '1-*': [{ signal: 'FAILED: impossible' }],
      '2-*': succeed('src/b.txt', 'b\n'),
    });
    const result = await fixture.run({ maxRetries: 1, completion: 'keep' });
    expect(result.exitCode).toBe(3);
    // The printer `ralphtool run` uses without --json (the test above runs it for real).
    let out = '';
    const printer = new ProgressPrinter((text) => {
      out += text;
    }, plainStyle);
    for (const event of result.events()) printer.handle(event);
    expect(out).toContain('impossible');
    expect(row(out, '1')).toEqual(expect.arrayContaining(['2', 'exhausted']));
    expect(row(out, '2')?.[0]).toBe('2');
    expect(row(out, '2')).not.toContain('done');
    // What happened and where the user is now, in words.
    expect(out).toMatch(/retries/);
    expect(out).toContain(`ralph/${CHANGE}`);
  });
});

describe('the summary table names what ended an attempt that did not fail', () => {
  it('a claim lost on the remote: the run’s end names it, not a stop by the user', async () => {
    fixture = new LoopHarness(CHANGE, stories(1)).scenario({ '1-1': [{ say: 'working' }] });
    const result = await fixture.run({
      completion: 'unanswered',
      stopWhen: (event) => event.type === 'story.started',
    });
    const events = result.events();
    // What the remote session adds to the stream when the heartbeat finds the claim taken.
    const lost = { type: 'claim.lost', remote: 'origin', holder: 'runner-9 (pid 99)' } as const;
    const at = events.findIndex((e) => e.type === 'run.finished');
    const out = printed([...events.slice(0, at), lost, ...events.slice(at)]);
    expect(out).toContain('stopped: the claim was taken over by runner-9 (pid 99)');
    expect(out).not.toContain('stopped by the user');
    expect(printed(events)).toContain('stopped by the user');
  });

  it('blocked: the question, not a stop by the user, and the attempt is not counted', async () => {
    fixture = new LoopHarness(CHANGE, stories(2)).scenario({
      '1-1': [{ signal: 'BLOCKED: Which database?' }],
    });
    const result = await fixture.run({ completion: 'keep' });
    expect(result.exitCode).toBe(4);
    const out = printed(result.events());
    expect(row(out, '1')).toEqual(expect.arrayContaining(['0', 'blocked']));
    expect(row(out, '1')).not.toContain('stopped');
  });

  it('a usage limit with --on-limit stop: limited, not counted', async () => {
    fixture = new LoopHarness(CHANGE, stories(2)).scenario({ '1-1': [{ exit: 75 }] });
    const result = await fixture.run({ completion: 'keep', options: { onLimit: 'stop' } });
    expect(result.exitCode).toBe(5);
    const out = printed(result.events());
    expect(row(out, '1')).toEqual(expect.arrayContaining(['0', 'limited']));
  });

  it('an attempt Claude Code ended at --max-budget-usd: budget, not counted', async () => {
    fixture = new LoopHarness(CHANGE, stories(2)).scenario({
      '1-1': [{ cost: 0.5 }, ...succeed('src/a.txt', 'a\n')],
    });
    const result = await fixture.run({
      completion: 'keep',
      format: 'claude',
      options: { maxCostUsd: 0.4 },
    });
    expect(result.exitCode).toBe(5);
    const out = printed(result.events());
    expect(row(out, '1')).toEqual(expect.arrayContaining(['0', 'budget']));
  });
});
