import { chmodSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assertAgentAvailable } from '../../src/agents/preflight.js';
import { RuntimeError } from '../../src/core/errors.js';

let dir = '';
beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'ralphtool-preflight-')));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const command = (line: string) => ({ agent: 'command' as const, agentCommand: line });

describe('assertAgentAvailable', () => {
  it('finds a relative program from the directory given, not the process directory', () => {
    writeFileSync(path.join(dir, 'agent.sh'), '#!/bin/sh\n');
    chmodSync(path.join(dir, 'agent.sh'), 0o755);
    expect(() =>
      assertAgentAvailable(command('./agent.sh --fast'), process.env, dir),
    ).not.toThrow();
    expect(() => assertAgentAvailable(command('./agent.sh'), process.env, os.tmpdir())).toThrow(
      /`\.\/agent\.sh` was not found/,
    );
  });

  it('says a file that exists but cannot be executed is not executable, and how to fix it', () => {
    writeFileSync(path.join(dir, 'agent.mjs'), 'console.log(1)\n');
    const check = () => assertAgentAvailable(command('./agent.mjs'), process.env, dir);
    expect(check).toThrow(RuntimeError);
    expect(check).toThrow(/is not an executable file: make it one \(`chmod \+x .*agent\.mjs`\)/);
  });

  it('searches PATH for a bare name', () => {
    expect(() => assertAgentAvailable(command('no-such-agent-xyz'), { PATH: dir }, dir)).toThrow(
      /`no-such-agent-xyz` was not found/,
    );
    expect(() => assertAgentAvailable(command('node'), process.env, dir)).not.toThrow();
  });
});
