import { defineConfig } from 'vitest/config';
import { SLOW_TESTS } from './vitest.tiers.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['**/node_modules/**', ...SLOW_TESTS],
    // Tests drive real git and real processes on a shared 2-core machine: limits are generous,
    // and nothing asserts on time.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest would pick one worker on 2 cores; most of a test's time is spent waiting on git,
    // agents and terminals, so two files at once use the machine better (measured in README).
    maxWorkers: 2,
  },
});
