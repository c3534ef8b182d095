import { defineConfig } from 'vitest/config';
import { SlowestFirstSequencer } from './vitest.sequencer.js';
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
    // A worker runs one file after another without a fresh process each time (2m36s → 2m23s on
    // 2 cores). The test files keep no state between them: temporary repositories, their own env
    // objects; the one test that sets process.env puts it back.
    isolate: false,
    // Vitest would pick one worker on 2 cores. Measured there: 2 workers 2m58s, 3 workers 2m39s,
    // 4 workers 2m41s. A test waits on git, agents and terminals for part of its time, but past
    // 3 workers the two cores are full.
    maxWorkers: 3,
    sequence: { sequencer: SlowestFirstSequencer },
  },
});
