import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BUNDLE, bundleText } from '../../scripts/bundle.mjs';

describe("the action's prebuilt ralphtool", () => {
  it('is the one the sources give (else: npm run bundle, and commit it)', async () => {
    // dist/ is built before the tier runs (npm test's pretest).
    const fresh = await bundleText();
    expect(
      readFileSync(BUNDLE, 'utf8') === fresh,
      `${BUNDLE} is stale: run \`npm run bundle\``,
    ).toBe(true);
  });
});
