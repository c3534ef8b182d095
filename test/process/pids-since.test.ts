import { describe, expect, it } from 'vitest';
import { pidsSince } from '../../src/process/descendants.js';
import { forksSinceBoot, lastPid, pidMax } from '../../src/process/proc.js';

// After each attempt ralphtool looks for the processes the agent left: only the pids given since
// the agent started can be its, unless the kernel wrapped its pids around meanwhile.

const base = { leader: 5_000, last: 5_200, forks: 10_300, forksAtStart: 10_000, pidMax: 32_768 };

describe('the pids an agent’s processes can have', () => {
  it('from the agent’s own to the last one given, when the pids cannot have wrapped', () => {
    expect(pidsSince(base)).toEqual({ from: 5_000, to: 5_200 });
  });

  it('all of them once the last pid is below the agent’s (they wrapped)', () => {
    expect(pidsSince({ ...base, last: 300 })).toBeNull();
  });

  it('all of them when enough processes were made to wrap and climb past the agent’s pid again', () => {
    expect(pidsSince({ ...base, forks: 10_000 + 32_768 - 5_000 })).toBeNull();
    expect(pidsSince({ ...base, forks: 10_000 + 32_768 - 5_001 })).not.toBeNull();
  });

  it.each(['last', 'forks', 'forksAtStart', 'pidMax'] as const)(
    'all of them when %s cannot be read (no /proc)',
    (unknown) => {
      expect(pidsSince({ ...base, [unknown]: null })).toBeNull();
    },
  );

  it('reads the figures of this machine', () => {
    expect(lastPid()).toBeGreaterThan(0);
    expect(forksSinceBoot()).toBeGreaterThan(0);
    expect(pidMax()).toBeGreaterThanOrEqual(lastPid() ?? 0);
  });
});
