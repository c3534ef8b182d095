/**
 * The test tiers (docs/architecture.md, "Tests"). `npm test` runs everything a contributor
 * needs; the slow tier holds what takes minutes or measures rather than checks: the random-agent
 * soak and the benchmark scripts' smoke run. CI runs both.
 */
export const SLOW_TESTS = [
  'test/fuzz/soak.test.ts',
  'test/bench/**/*.test.ts',
  // Real usage-limit waits with the real claude binary: about 20 s each.
  'test/e2e/claude-limits.test.ts',
  // The real opencode binary: about 150 s for its four tests (minutes each on a loaded machine).
  'test/e2e/opencode-loop.test.ts',
];
