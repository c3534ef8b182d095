import { afterEach, describe, expect, it } from 'vitest';
import { ManyFixture, slowSucceed } from './many-fixture.js';

// Several runs scheduled by footprint (docs/contract.md, "Several changes at once"): a change
// that names a path a running change names waits while another can go.

let fixture: ManyFixture | undefined;
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
});

interface Event {
  type: string;
  change?: string;
}

/** The position of the first event of `change` that matches `type` (any type when omitted). */
function firstAt(events: readonly Event[], change: string, type?: string): number {
  return events.findIndex((e) => e.change === change && (type === undefined || e.type === type));
}

describe('run a b c --parallel 2: changes naming the same paths do not run at the same time', () => {
  it('the second of two changes naming src/shared.ts waits; the one that names nothing shared goes first', async () => {
    fixture = new ManyFixture(
      { alpha: 1, beta: 1, gamma: 1 },
      {
        'openspec/changes/alpha/design.md': '# Design\n\nThe parser moves into `src/shared.ts`.\n',
        'openspec/changes/beta/design.md':
          '# Design\n\nAdd a helper to src/shared.ts, and/or a flag.\n',
        'openspec/changes/gamma/design.md':
          '# Design\n\nOnly `src/gamma.ts` (see https://example.com/src/shared.ts).\n',
      },
    ).scenarios({
      alpha: { '1-1': slowSucceed('src/alpha.txt', 'a\n') },
      beta: { '1-1': slowSucceed('src/beta.txt', 'b\n') },
      gamma: { '1-1': slowSucceed('src/gamma.txt', 'g\n') },
    });
    const f = fixture;
    const result = await f.cli('run', [
      'alpha',
      'beta',
      'gamma',
      '--parallel',
      '2',
      '--on-complete',
      'keep',
      '--json',
    ]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      'ralphtool: [beta] waits: it names src/shared.ts, which alpha (running) names too; gamma starts first',
    );
    const events = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Event);
    const betaStarts = firstAt(events, 'beta', 'run.started');
    expect(firstAt(events, 'gamma', 'run.started')).toBeLessThan(betaStarts);
    // beta took the place of one that had ended.
    const firstEnd = Math.min(
      ...['alpha', 'gamma'].map((c) => firstAt(events, c, 'story.completed')).filter((i) => i >= 0),
    );
    expect(firstEnd).toBeLessThan(betaStarts);
    for (const change of f.changes) {
      expect(f.runState(change)).toMatchObject({ status: 'finished', choice: 'keep' });
    }
  }, 240_000);
});
