import { defineConfig } from 'vitest/config';
import { SLOW_TESTS } from './vitest.tiers.js';

export default defineConfig({
  test: {
    include: SLOW_TESTS,
    testTimeout: 300_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
