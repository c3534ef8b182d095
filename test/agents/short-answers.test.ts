import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agentLogin } from '../../src/agents/login-status.js';
import { gatherFacts } from '../../src/doctor/gather.js';

// A program asked for a short answer (`--version`, `auth status`, `login status`) that is not the
// vendor's CLI — a stand-in, a wrapper that starts the whole agent whatever it is asked — may print
// without end. ralphtool keeps 64 KiB of such an answer and stops the program: it never holds the
// flood in memory (a bench's stand-in once put 200 MB into the login check) nor waits for the
// timeout. Each asker reads that as "no answer".

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** An executable that prints a JSON-looking line forever, whatever its arguments. */
function endlessProgram(name: string): string {
  dir = mkdtempSync(path.join(os.tmpdir(), 'ralphtool-short-answer-'));
  const program = path.join(dir, name);
  writeFileSync(
    program,
    `#!${process.execPath}\nconst line = JSON.stringify({ type: 'assistant', text: 'x'.repeat(200) }) + '\\n';\nconst more = () => { while (process.stdout.write(line)); process.stdout.once('drain', more); };\nmore();\n`,
  );
  chmodSync(program, 0o755);
  return program;
}

describe('a program that floods a short question', () => {
  it.each([
    ['claude', 'RALPHTOOL_CLAUDE_BIN'],
    ['codex', 'RALPHTOOL_CODEX_BIN'],
  ] as const)('%s: the login check stops it and says nothing is known', async (agent, variable) => {
    const program = endlessProgram(agent);
    const env = { ...process.env, [variable]: program, HOME: dir, CODEX_HOME: dir };
    await expect(agentLogin(agent, env, dir)).resolves.toEqual({ kind: 'unknown' });
  });

  it('doctor: the version check stops it and says why', async () => {
    const program = endlessProgram('claude');
    const facts = await gatherFacts({
      cwd: dir,
      env: { ...process.env, RALPHTOOL_CLAUDE_BIN: program, HOME: dir },
      timeoutMs: 30_000,
      versionTimeoutMs: 30_000,
      uid: null,
    });
    expect(facts.claude.version).toBeNull();
    expect(facts.claude.versionError).toContain('printed more than ralphtool keeps');
  });
});
