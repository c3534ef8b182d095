import { describe, expect, it } from 'vitest';
import { remoteOptions } from '../../src/cli/remote-flags.js';
import { UsageError } from '../../src/core/errors.js';

describe('the remote flags', () => {
  it('default to a local run with a 15-minute claim TTL', () => {
    expect(remoteOptions({})).toEqual({
      push: null,
      from: null,
      claimTtlMs: 15 * 60_000,
      includeUncommitted: false,
    });
  });

  it('take a remote name, a URL or a path, and a TTL with --push', () => {
    expect(remoteOptions({ push: 'origin', claimTtl: '90s' })).toEqual({
      push: 'origin',
      from: null,
      claimTtlMs: 90_000,
      includeUncommitted: false,
    });
    expect(remoteOptions({ push: 'origin', includeUncommitted: true }).includeUncommitted).toBe(
      true,
    );
    expect(remoteOptions({ from: ' /srv/git/app.git ' }).from).toBe('/srv/git/app.git');
    // `--from` pushes where it fetched from: the TTL applies to its claim.
    expect(remoteOptions({ from: 'origin', claimTtl: '3s' }).claimTtlMs).toBe(3_000);
  });

  it('refuse an empty or option-like remote, a bad TTL, and a TTL without --push or --from (exit 2)', () => {
    for (const flags of [
      { push: '' },
      { push: '--force' },
      { from: '  ' },
      { push: 'o', claimTtl: 'soon' },
      { claimTtl: '5m' },
      { includeUncommitted: true },
    ]) {
      expect(() => remoteOptions(flags)).toThrow(UsageError);
    }
  });
});
