import { chmodSync, existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { makeChangeRepo, type TempRepo } from '../support/temp-repo.js';

/** PATH without any directory that holds a `claude` (node_modules/.bin does, under npm). */
function pathWithoutClaude(): string {
  return (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter((dir) => dir !== '' && !existsSync(path.join(dir, 'claude')))
    .join(path.delimiter);
}

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

describe('ralphtool doctor', () => {
  let fakeBin: string;
  let repo: TempRepo | null = null;
  let elsewhere: string | null = null;

  beforeAll(() => {
    fakeBin = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'ralphtool-doctor-bin-')));
    const claude = path.join(fakeBin, 'claude');
    writeFileSync(claude, '#!/bin/sh\necho "9.9.9 (Claude Code)"\n');
    chmodSync(claude, 0o755);
    return () => rmSync(fakeBin, { recursive: true, force: true });
  });
  afterEach(() => {
    repo?.remove();
    repo = null;
    if (elsewhere) rmSync(elsewhere, { recursive: true, force: true });
    elsewhere = null;
  });

  const withClaude = (): Record<string, string | undefined> => ({
    PATH: `${fakeBin}${path.delimiter}${pathWithoutClaude()}`,
    RALPHTOOL_CLAUDE_BIN: undefined,
    IS_SANDBOX: '1',
  });
  const goodRepo = (): TempRepo =>
    makeChangeRepo('add-auth', [{ title: 'Setup', tasks: ['Add the dependency', 'Wire it'] }]);

  it('passes in a good repository with claude on PATH: one line per check, exit 0', async () => {
    repo = goodRepo();
    const run = await runCli(['doctor'], { cwd: repo.dir, env: withClaude() });
    expect(run.stdout).toMatch(/^✓ git +version \d+\.\d+/m);
    expect(run.stdout).toMatch(/^✓ git identity +Test User <test@example.com>$/m);
    expect(run.stdout).toMatch(new RegExp(`^✓ repository +${repo.dir}$`, 'm'));
    expect(run.stdout).toMatch(/^✓ branch +main$/m);
    expect(run.stdout).toMatch(/^✓ git operation +no merge/m);
    expect(run.stdout).toMatch(/^✓ working tree +clean$/m);
    expect(run.stdout).toMatch(/^✓ recorded runs +none$/m);
    expect(run.stdout).toMatch(/^✓ openspec +\S+\/openspec$/m);
    expect(run.stdout).toMatch(/^✓ changes +1 change, 1 with work left$/m);
    expect(run.stdout).toMatch(/^✓ claude +9\.9\.9 \(Claude Code\)/m);
    expect(run.stdout).toMatch(/^[✓!] codex /m);
    expect(run.stdout).toMatch(/^[✓!] opencode /m);
    expect(run.stdout).toMatch(/^[✓!] gemini /m);
    expect(run.stdout).toMatch(/^✓ user /m);
    expect(run.stdout).toContain('Ready:');
    expect(run.exitCode).toBe(0);
  });

  it('fails without claude on PATH and says how to install it', async () => {
    repo = goodRepo();
    const run = await runCli(['doctor'], {
      cwd: repo.dir,
      env: { ...withClaude(), PATH: pathWithoutClaude() },
    });
    expect(run.stdout).toMatch(/^✗ claude +not found on PATH/m);
    expect(run.stdout).toMatch(
      /fix: install Claude Code with `npm install -g @anthropic-ai\/claude-code`/,
    );
    expect(run.exitCode).toBe(1);
  });

  it('honours RALPHTOOL_CLAUDE_BIN', async () => {
    repo = goodRepo();
    const run = await runCli(['doctor'], {
      cwd: repo.dir,
      env: {
        ...withClaude(),
        PATH: pathWithoutClaude(),
        RALPHTOOL_CLAUDE_BIN: path.join(fakeBin, 'claude'),
      },
    });
    expect(run.stdout).toMatch(/^✓ claude +9\.9\.9 \(Claude Code\)/m);
    expect(run.exitCode).toBe(0);
  });

  it('fails the repository check outside a repository, with a fix', async () => {
    elsewhere = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'ralphtool-doctor-norepo-')));
    const run = await runCli(['doctor'], { cwd: elsewhere, env: withClaude() });
    expect(run.stdout).toMatch(
      new RegExp(`^✗ repository +${elsewhere} is not inside a git work tree$`, 'm'),
    );
    expect(run.stdout).toMatch(
      /fix: run ralphtool in your project \(or pass -C <dir>\), or create a repository with `git init`/,
    );
    expect(run.stdout).toMatch(/^✗ openspec +no openspec\/ folder/m);
    expect(run.exitCode).toBe(1);
  });

  it('sees a merge in progress', async () => {
    repo = goodRepo();
    repo.git('checkout', '-q', '-b', 'other');
    repo.write('README.md', 'theirs\n');
    repo.git('commit', '-q', '-am', 'theirs');
    repo.git('checkout', '-q', 'main');
    repo.write('README.md', 'ours\n');
    repo.git('commit', '-q', '-am', 'ours');
    expect(() => repo?.git('merge', '-q', 'other')).toThrow();

    const run = await runCli(['-C', repo.dir, 'doctor'], { cwd: os.tmpdir(), env: withClaude() });
    expect(run.stdout).toMatch(/^✗ git operation +a merge in progress/m);
    expect(run.stdout).toContain('git merge --abort');
    expect(run.stdout).toMatch(/^✓ working tree +1 uncommitted change /m);
    expect(run.exitCode).toBe(1);
  });

  it('is not ready on a ralph/ branch, where run refuses to start, and says the way out', async () => {
    repo = goodRepo();
    repo.git('checkout', '-q', '-b', 'ralph/add-auth');
    const run = await runCli(['doctor'], { cwd: repo.dir, env: withClaude() });
    expect(run.stdout).toMatch(
      /^✗ branch +ralph\/add-auth: a ralphtool run branch with no active run/m,
    );
    expect(run.stdout).toContain('fix: switch back to your own branch (`git switch <branch>`)');
    expect(run.stdout).not.toContain('Ready:');
    expect(run.stdout).toContain('Not ready');
    expect(run.exitCode).toBe(1);
  });

  it.runIf(isRoot)('as root without IS_SANDBOX=1, says to set it', async () => {
    repo = goodRepo();
    const run = await runCli(['doctor'], {
      cwd: repo.dir,
      env: { ...withClaude(), IS_SANDBOX: undefined },
    });
    expect(run.stdout).toMatch(/^✗ user +root without IS_SANDBOX=1/m);
    expect(run.stdout).toMatch(/fix: on a sandbox machine \(container, VM\) set IS_SANDBOX=1/);
    expect(run.exitCode).toBe(1);
  });
});
