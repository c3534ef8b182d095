import { defineConfig, type ViteUserConfig } from 'vitest/config';
import { SlowestFirstSequencer } from './vitest.sequencer.js';

/**
 * The test tiers (docs/architecture.md, "Tests"): one table, read by the four vitest
 * configurations and by the guard in test/support/tier-guard.ts. A test file's folder says its
 * tier: `test/system/`, `test/compat/` and `test/slow/` are theirs; every other folder of `test/`
 * is the contributor tier (`npm test`), whose only spawned-CLI tests live in `test/smoke/`.
 */
export const TIERS = {
  /** The loop a contributor runs many times an hour: units, the engine in-process, smoke. */
  contributor: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/system/**', 'test/compat/**', 'test/slow/**'],
    workers: 3,
    testTimeoutMs: 60_000,
  },
  /** The spawned CLI, fault worlds, worktrees, the remote, terminals under tmux. */
  system: {
    include: ['test/system/**/*.test.ts'],
    exclude: [],
    workers: 3,
    testTimeoutMs: 120_000,
  },
  /** The real claude, codex, opencode, gemini and openspec programs. */
  compat: {
    include: ['test/compat/**/*.test.ts'],
    exclude: [],
    workers: 2,
    testTimeoutMs: 300_000,
  },
  /** What takes minutes or measures: the soak, the benchmarks' smoke, real limit waits. */
  slow: { include: ['test/slow/**/*.test.ts'], exclude: [], workers: 2, testTimeoutMs: 300_000 },
} as const;

export type TierName = keyof typeof TIERS;

/** Where the contributor tier may start ralphtool as a process: one smoke test per command. */
export const SMOKE_FOLDER = 'test/smoke/';

/** The vitest configuration of one tier. */
export function tierConfig(name: TierName): ViteUserConfig {
  const tier = TIERS[name];
  return defineConfig({
    test: {
      include: [...tier.include],
      exclude: ['**/node_modules/**', ...tier.exclude],
      // Tests drive real git and real processes on a shared 2-core machine: limits are
      // generous, and nothing asserts on time.
      testTimeout: tier.testTimeoutMs,
      hookTimeout: 60_000,
      pool: 'forks',
      // A worker runs one file after another without a fresh process each time. The test
      // files keep no state between them: temporary repositories, their own env objects; the
      // one test that sets process.env puts it back.
      isolate: false,
      // Past 3 workers the two cores of this project's machines are full.
      maxWorkers: tier.workers,
      sequence: { sequencer: SlowestFirstSequencer },
      // Each test's own XDG_STATE_HOME: the usage governor's files stay apart (state-home.ts).
      setupFiles: ['test/support/state-home.ts'],
      // Read by test/support/tier-guard.ts; not a RALPHTOOL_ variable, which agents would see.
      env: { TEST_TIER: name },
    },
  });
}
