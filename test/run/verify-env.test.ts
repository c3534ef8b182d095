import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runVerifyCommands } from '../../src/run/loop/verify.js';

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('verify commands', () => {
  it('run the agent’s code with the agent’s environment: no forge credential', async () => {
    dir = mkdtempSync(join(tmpdir(), 'ralphtool-verify-env-'));
    const script = join(dir, 'dump.mjs');
    const dump = join(dir, 'env.json');
    writeFileSync(
      script,
      "import { writeFileSync } from 'node:fs';\nwriteFileSync(process.argv[2], JSON.stringify(process.env));\n",
    );
    const run = await runVerifyCommands(
      [`node ${script} ${dump}`],
      dir,
      { PATH: process.env.PATH, GH_TOKEN: 'ghs_secret', KEEP_ME: 'yes' },
      30_000,
      new AbortController().signal,
    );
    expect(run.failure).toBeNull();
    const seen = JSON.parse(readFileSync(dump, 'utf8')) as Record<string, string>;
    expect(seen.KEEP_ME).toBe('yes');
    expect(seen.GH_TOKEN).toBeUndefined();
  });
});
