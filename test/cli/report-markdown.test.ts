import { describe, expect, it } from 'vitest';
import { buildReport } from '../../src/core/run-report.js';
import { parseNumstatZ } from '../../src/git/diffstat.js';
import { renderReportMarkdown } from '../../src/cli/render/report.js';

// `report --markdown` is a pull request's body: what a reviewer needs of each story, and the
// files the change touched.

const STATE = {
  change: 'add-auth',
  branch: 'ralph/add-auth',
  status: 'active' as const,
  outcome: 'complete',
  choice: null,
  costUsd: 0,
  stories: {
    '1': {
      attempts: 2,
      completed: true,
      costUsd: 0,
      durationMs: 1000,
      flakes: 1,
      failures: [
        { attempt: 1, kind: 'verify-failed' as const, reason: 'npm test | exited 1\nmore' },
      ],
      verify: [{ command: 'npm test', passed: true, flaky: true }],
    },
    '2': {
      attempts: 1,
      completed: true,
      costUsd: 0,
      durationMs: 500,
      testChanges: ['test/a.test.ts deleted (allowed by task 2.1 ("Remove the old tests"))'],
      sandboxBlocks: [
        { kind: 'network' as const, target: 'example.com:443', count: 2 },
        { kind: 'write' as const, target: '/etc/x|y', count: 1 },
      ],
    },
  },
};

function markdown(files = parseNumstatZ('3\t1\tsrc/a.ts\0-\t-\tlogo.png\0')): string {
  return renderReportMarkdown(
    buildReport(
      STATE,
      new Map([
        ['1', 'Login'],
        ['2', 'Cleanup'],
        ['3', 'Left'],
      ]),
      ['1', '2', '3'],
      files,
    ),
  );
}

describe('report --markdown', () => {
  it('says per story what the sandbox refused its agents', () => {
    expect(markdown()).toContain(
      '- Story 2: the sandbox refused: a connection to example.com:443 (2×), a write to /etc/x\\|y',
    );
  });

  it('gives per story its attempts with each failure, verify results, flakes and test changes', () => {
    const text = markdown();
    expect(text).toContain('**1. Login**: accepted on attempt 2');
    expect(text).toContain('- attempt 1 failed (verify-failed): npm test \\| exited 1 more');
    expect(text).toContain('- verify passed on its rerun (flaky): `npm test`');
    expect(text).toContain('- flaky verify runs (failed, then passed when run again): 1');
    expect(text).toContain('**2. Cleanup**: accepted on attempt 1');
    expect(text).toContain('- tests changed: test/a.test.ts deleted (allowed by task 2.1');
    expect(text).toMatch(/\*\*1\. Login\*\*[\s\S]*- tests changed: no/);
    // A story never tried has no section.
    expect(text).not.toContain('**3. Left**');
  });

  it('lists the files the change touched with lines added and removed', () => {
    const text = markdown();
    expect(text).toContain('### Files changed (2, +3 −1)');
    expect(text).toContain('| `src/a.ts` | 3 | 1 |');
    expect(text).toContain('| `logo.png` | binary | binary |');
  });

  it('has no files section when they are unknown', () => {
    expect(markdown(null as unknown as ReturnType<typeof parseNumstatZ>)).not.toContain(
      'Files changed',
    );
  });
});

describe('the review in report --markdown', () => {
  it('gives the verdict and, per scenario, met with its evidence or not met with why', () => {
    const review = {
      round: 2,
      verdict: 'rejected' as const,
      reasons: 'logout | missing',
      scenarios: [
        {
          capability: 'auth',
          requirement: 'Login',
          scenario: 'Good',
          met: true,
          note: 'test/a.ts',
        },
        {
          capability: 'auth',
          requirement: 'Logout',
          scenario: 'Gone',
          met: false,
          note: 'no code',
        },
        { capability: 'auth', requirement: 'Logout', scenario: 'Twice', met: null, note: '' },
      ],
    };
    const text = renderReportMarkdown(buildReport({ ...STATE, review }, new Map(), []));
    expect(text).toContain('❌ not approved (round 2): logout \\| missing');
    expect(text).toContain('| auth: Login | Good | ✅ met | test/a.ts |');
    expect(text).toContain('| auth: Logout | Gone | ❌ not met | no code |');
    expect(text).toContain('| auth: Logout | Twice | — not judged |  |');
  });

  it('has no review section for a run without one', () => {
    expect(markdown()).not.toContain('Independent review');
  });
});

describe('parseNumstatZ', () => {
  it('reads plain files, binary files and renames', () => {
    expect(parseNumstatZ('1\t2\ta b.txt\0-\t-\tbin\0' + '0\t0\t\0old.txt\0new.txt\0')).toEqual([
      { path: 'a b.txt', added: 1, removed: 2 },
      { path: 'bin', added: null, removed: null },
      { path: 'old.txt → new.txt', added: 0, removed: 0 },
    ]);
    expect(parseNumstatZ('')).toEqual([]);
  });
});
