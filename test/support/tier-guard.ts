import path from 'node:path';
import { expect } from 'vitest';
import { SMOKE_FOLDER } from '../../vitest.tiers.js';

/**
 * Keeps the contributor tier fast by rule rather than by review: a test of `npm test` that
 * starts ralphtool as a process (or a terminal under tmux) fails at once, naming where it
 * belongs, unless it is one of the smoke tests in test/smoke/. Spawned tests go to
 * test/system/ by default (docs/architecture.md, "Tests").
 */
export function refuseSpawnInContributorTier(what: string): void {
  if (process.env.TEST_TIER !== 'contributor') return;
  const file = path.relative(process.cwd(), expect.getState().testPath ?? '');
  if (file.startsWith(SMOKE_FOLDER)) return;
  throw new Error(
    `${file} starts ${what} in the contributor tier (npm test): move the test to test/system/ (npm run test:system), or to ${SMOKE_FOLDER} if it is a command's one smoke test`,
  );
}
