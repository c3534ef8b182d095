import { describe, expect, it } from 'vitest';
import { BUNDLE_DIR, bundleFiles, committedFiles, differences } from '../../scripts/bundle.mjs';

describe("the action's prebuilt ralphtool", () => {
  it('is the one the sources give (else: npm run bundle, and commit it)', async () => {
    // dist/ is built before the tier runs (npm test's pretest).
    const stale = differences(committedFiles(), await bundleFiles());
    expect(stale, `${BUNDLE_DIR}/ is stale: run \`npm run bundle\``).toEqual([]);
  });
});
