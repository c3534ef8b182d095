import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { gatherFacts } from '../../src/doctor/gather.js';

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('doctor looks at the agent programs in the environment it was given', () => {
  it('runs `claude --version` with that environment, not ralphtool’s own', async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'ralphtool-doctor-env-'));
    const claude = path.join(dir, 'claude');
    // Prints a variable that only the given environment holds.
    writeFileSync(claude, '#!/bin/sh\necho "claude ${DOCTOR_MARKER:-unset}"\n');
    chmodSync(claude, 0o755);
    expect(process.env.DOCTOR_MARKER).toBeUndefined();
    const facts = await gatherFacts({
      cwd: dir,
      env: { ...process.env, RALPHTOOL_CLAUDE_BIN: claude, DOCTOR_MARKER: 'from-the-caller' },
      timeoutMs: 30_000,
      versionTimeoutMs: 30_000,
      uid: null,
    });
    expect(facts.claude.path).toBe(claude);
    expect(facts.claude.version).toBe('claude from-the-caller');
  });
});
