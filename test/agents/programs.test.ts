import { chmodSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assertAgentAvailable } from '../../src/agents/preflight.js';
import { installHint, programNotFound, vendorProgram } from '../../src/agents/programs.js';
import { gatherFacts } from '../../src/doctor/gather.js';

let dir = '';
beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'ralphtool-programs-')));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('where the vendor agents are looked for', () => {
  it('takes RALPHTOOL_CLAUDE_BIN / RALPHTOOL_CODEX_BIN when set, else `claude` / `codex`', () => {
    expect(vendorProgram('claude', {})).toEqual({ program: 'claude', fromEnv: null });
    expect(vendorProgram('claude', { RALPHTOOL_CLAUDE_BIN: '  ' })).toEqual({
      program: 'claude',
      fromEnv: null,
    });
    expect(vendorProgram('claude', { RALPHTOOL_CLAUDE_BIN: ' /opt/claude ' })).toEqual({
      program: '/opt/claude',
      fromEnv: 'RALPHTOOL_CLAUDE_BIN',
    });
    expect(vendorProgram('codex', { RALPHTOOL_CLAUDE_BIN: '/opt/claude' })).toEqual({
      program: 'codex',
      fromEnv: null,
    });
    expect(vendorProgram('codex', { RALPHTOOL_CODEX_BIN: ' /opt/codex ' })).toEqual({
      program: '/opt/codex',
      fromEnv: 'RALPHTOOL_CODEX_BIN',
    });
    expect(vendorProgram('claude', { RALPHTOOL_CODEX_BIN: '/opt/codex' })).toEqual({
      program: 'claude',
      fromEnv: null,
    });
  });

  it('is the same rule for the check before a run and for doctor', async () => {
    const claude = path.join(dir, 'my-claude');
    writeFileSync(claude, '#!/bin/sh\necho "9.9.9 (Claude Code)"\n');
    chmodSync(claude, 0o755);
    const env = { PATH: path.join(dir, 'empty'), RALPHTOOL_CLAUDE_BIN: claude };
    expect(() => assertAgentAvailable({ agent: 'claude' }, env, dir)).not.toThrow();
    const facts = await gatherFacts({
      cwd: dir,
      env,
      timeoutMs: 30_000,
      versionTimeoutMs: 30_000,
      uid: null,
    });
    expect(facts.claude).toMatchObject({
      program: claude,
      fromEnv: 'RALPHTOOL_CLAUDE_BIN',
      path: claude,
      version: '9.9.9 (Claude Code)',
    });
  });

  it('says how to install what is missing, naming the variable it came from', () => {
    const missing = { PATH: path.join(dir, 'empty') };
    expect(() => assertAgentAvailable({ agent: 'codex' }, missing, dir)).toThrow(
      programNotFound('codex', { program: 'codex', fromEnv: null }),
    );
    expect(installHint('codex')).toBe('install Codex with `npm install -g @openai/codex`');
    expect(() => assertAgentAvailable({ agent: 'gemini' }, missing, dir)).toThrow(
      'Gemini CLI (`gemini`) was not found on PATH: install Gemini CLI with `npm install -g @google/gemini-cli`',
    );
    const wrong = { ...missing, RALPHTOOL_CLAUDE_BIN: path.join(dir, 'nope') };
    expect(() => assertAgentAvailable({ agent: 'claude' }, wrong, dir)).toThrow(
      `RALPHTOOL_CLAUDE_BIN is set to \`${path.join(dir, 'nope')}\`, which was not found: fix or unset it, or install Claude Code with \`npm install -g @anthropic-ai/claude-code\``,
    );
  });
});
