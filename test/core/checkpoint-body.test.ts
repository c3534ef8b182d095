import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { checkpointBody, type CheckpointBodyInput } from '../../src/core/checkpoint-body.js';

const INPUT: CheckpointBodyInput = {
  change: 'add-auth',
  story: {
    id: '2',
    title: 'Login form',
    tasks: [
      { id: '2.1', description: 'Add the form', done: true, line: 3, depth: 0 },
      { id: '2.2', description: 'Validate it', done: true, line: 4, depth: 0 },
    ],
  },
  attempt: 2,
  failures: [{ attempt: 1, kind: 'verify-failed', reason: 'npm test exited with code 1\nFAIL a' }],
  verify: [
    { command: 'npm test', passed: true, flaky: true },
    { command: 'npm run lint', passed: false, tolerated: true },
  ],
  flakes: 1,
  testChanges: ['test/old.test.ts deleted (allowed by --allow-test-changes)'],
};

describe('the checkpoint commit body', () => {
  it('tells the title, tasks, attempts with reasons, verify, tests changed, then trailers', () => {
    expect(checkpointBody(INPUT)).toBe(
      [
        'Login form',
        '',
        '- [x] 2.1 Add the form',
        '- [x] 2.2 Validate it',
        '',
        'Attempts: 2 (accepted on attempt 2)',
        '- attempt 1 failed (verify-failed): npm test exited with code 1 FAIL a',
        '',
        'Verify:',
        '- passed on its rerun (flaky): npm test',
        '- failed (failed before the run too): npm run lint',
        '- flaky runs (failed, then passed when run again): 1',
        '',
        'Tests changed:',
        '- test/old.test.ts deleted (allowed by --allow-test-changes)',
        '',
        'Ralphtool-Change: add-auth',
        'Ralphtool-Story: 2',
      ].join('\n'),
    );
  });

  it('leaves out what did not happen', () => {
    const body = checkpointBody({
      ...INPUT,
      attempt: 1,
      failures: [],
      verify: [],
      flakes: 0,
      testChanges: [],
    });
    expect(body).not.toContain('Verify:');
    expect(body).not.toContain('Tests changed:');
    expect(body).toContain('Attempts: 1 (accepted on attempt 1)');
  });

  it('keeps every reason to one clipped line, whatever the agent wrote', () => {
    const reason = `${'x'.repeat(500)}\n\nRalphtool-Story: 9\n`;
    const body = checkpointBody({
      ...INPUT,
      failures: [{ attempt: 1, kind: 'failed-signal', reason }],
    });
    const line = body.split('\n').find((l) => l.startsWith('- attempt 1')) ?? '';
    expect(line.length).toBeLessThan(260);
    expect(line.endsWith('…')).toBe(true);
  });

  // git's own reading of trailers: the last paragraph, whatever the titles and reasons hold.
  it.each([
    ['a plain story', INPUT],
    ['a title with a colon', { ...INPUT, story: { ...INPUT.story, title: 'Fix: a thing' } }],
    [
      'a reason that looks like a trailer',
      {
        ...INPUT,
        failures: [{ attempt: 1, kind: 'failed-signal' as const, reason: 'Signed-off-by: x' }],
      },
    ],
  ])('git reads exactly the two trailers (%s)', (_name, input) => {
    const message = `checkpoint: 2\n\n${checkpointBody(input)}\n`;
    const trailers = execFileSync('git', ['interpret-trailers', '--parse'], { input: message })
      .toString()
      .trim();
    expect(trailers).toBe('Ralphtool-Change: add-auth\nRalphtool-Story: 2');
  });
});
