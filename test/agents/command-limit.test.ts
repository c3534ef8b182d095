import { describe, expect, it } from 'vitest';
import { createCommandTranslator } from '../../src/agents/command-translator.js';

// The command agent's limit convention (docs/contract.md, "Usage limits"): exit 75, with
// optional `ralphtool-resets-at:` and `ralphtool-limit-kind:` lines on stdout or stderr.

function finish(stdout: readonly string[], stderr: string, exitCode: number) {
  const t = createCommandTranslator();
  for (const line of stdout) t.push(line, false);
  return t.finish(stderr, exitCode).limit;
}

describe('the command agent at exit 75', () => {
  it('names the kind from a ralphtool-limit-kind line (stdout or stderr, the last counts)', () => {
    expect(finish(['ralphtool-limit-kind: overloaded'], '', 75)).toMatchObject({
      kind: 'overloaded',
      resetsAt: null,
    });
    expect(
      finish(['ralphtool-limit-kind: server'], 'ralphtool-limit-kind: connection\n', 75),
    ).toMatchObject({ kind: 'connection' });
    const reset = '2026-11-23T15:02:00.000Z';
    expect(finish([], `ralphtool-limit-kind: rate\nralphtool-resets-at: ${reset}\n`, 75)).toEqual(
      expect.objectContaining({ kind: 'rate', resetsAt: reset, source: 'exit 75' }),
    );
  });

  it('an unknown kind is ignored: usage with a reset time, rate without', () => {
    expect(finish([], 'ralphtool-limit-kind: tired\n', 75)).toMatchObject({ kind: 'rate' });
    expect(
      finish([], 'ralphtool-limit-kind: tired\nralphtool-resets-at: 1800000000\n', 75),
    ).toMatchObject({
      kind: 'usage',
      resetsAt: new Date(1_800_000_000_000).toISOString(),
    });
  });

  it('the lines mean nothing without exit 75', () => {
    expect(finish(['ralphtool-limit-kind: overloaded'], '', 1)).toBeNull();
    expect(finish([], 'ralphtool-limit-kind: overloaded\n', 0)).toBeNull();
  });
});
