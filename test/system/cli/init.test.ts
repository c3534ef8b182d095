import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_PATH, runCli } from '../../support/cli.js';
import { makeTempRepo, type TempRepo } from '../../support/temp-repo.js';
import { TmuxSession, tmuxAvailable } from '../../support/tmux.js';

// docs/contract.md, "`init`": the repository's .ralphtool/config.yaml written from what doctor
// finds, asked first on a terminal, `--yes` otherwise, never over an existing file.

let repo: TempRepo | undefined;
let bin: string | undefined;
let session: TmuxSession | undefined;
afterEach(() => {
  session?.kill();
  repo?.remove();
  if (bin) rmSync(bin, { recursive: true, force: true });
  session = undefined;
  repo = undefined;
  bin = undefined;
});

/** A project with package.json (so `npm test` is inferred), and only `codex` installed. */
function project(): { repo: TempRepo; env: Record<string, string> } {
  const r = (repo = makeTempRepo({ 'package.json': '{"scripts":{"test":"node --test"}}\n' }));
  const dir = (bin = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'ralphtool-init-bin-'))));
  const codex = path.join(dir, 'codex');
  writeFileSync(codex, '#!/bin/sh\necho "codex-cli 0.171.0"\n');
  chmodSync(codex, 0o755);
  // Each agent's program named (a terminal's PATH is the tmux server's): only codex exists.
  const missing = path.join(dir, 'not-installed');
  const env = {
    RALPHTOOL_CLAUDE_BIN: missing,
    RALPHTOOL_CODEX_BIN: codex,
    RALPHTOOL_OPENCODE_BIN: missing,
    RALPHTOOL_GEMINI_BIN: missing,
    NO_COLOR: '1',
  };
  return { repo: r, env };
}

describe('ralphtool init', () => {
  it('with --yes writes the settings doctor finds, which config then reads; never twice', async () => {
    const { repo: r, env } = project();
    const file = path.join(r.dir, '.ralphtool', 'config.yaml');
    const result = await runCli(['init', '--yes'], { cwd: r.dir, env });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toBe(
      `Wrote ${file}.\n\`ralphtool config\` shows the settings a run uses; commit the file for the team.\n`,
    );
    const text = readFileSync(file, 'utf8');
    expect(text).toMatch(/^agent: codex$/m);
    expect(text).toMatch(/^verify:\n {2}- "npm test"$/m);
    const config = await runCli(['config', '--json'], { cwd: r.dir, env });
    const said = JSON.parse(config.stdout) as {
      settings: Record<string, { value: unknown; from: string }>;
    };
    expect(said.settings.agent).toMatchObject({ value: 'codex', from: 'repository' });
    expect(said.settings.verify).toMatchObject({ value: ['npm test'], from: 'repository' });

    const again = await runCli(['init', '--yes'], { cwd: r.dir, env });
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toBe(
      `ralphtool: ${file} exists already: edit it (\`ralphtool config\` shows what it sets), or remove it for init to write a new one\n`,
    );
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('without a terminal and without --yes writes nothing: one line, exit 2', async () => {
    const { repo: r, env } = project();
    const result = await runCli(['init'], { cwd: r.dir, env });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(
      /^ralphtool: init asks before it writes .*: pass --yes to write it\n$/,
    );
    expect(existsSync(path.join(r.dir, '.ralphtool'))).toBe(false);
    expect(r.git('status', '--porcelain')).toBe('');
  });

  it('outside a git repository says where to run it (exit 2)', async () => {
    const dir = (bin = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'ralphtool-init-none-'))));
    mkdirSync(path.join(dir, 'plain'));
    const result = await runCli(['init', '--yes'], {
      cwd: path.join(dir, 'plain'),
      env: { GIT_CEILING_DIRECTORIES: dir },
    });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(
      'is not in a git repository: run `ralphtool init` in your repository',
    );
  });

  it.skipIf(!tmuxAvailable())(
    'on a terminal shows the file and writes it only on yes',
    async () => {
      const { repo: r, env } = project();
      const file = path.join(r.dir, '.ralphtool', 'config.yaml');
      const start = (name: string): TmuxSession =>
        TmuxSession.start(`${name}-${process.pid}`, [process.execPath, CLI_PATH, 'init'], {
          cwd: r.dir,
          env,
          width: 120,
          height: 50,
        });
      session = start('ralphtool-init-no');
      await session.waitForText(`Write this to ${file}? [y/N]`);
      session.keys('Enter');
      expect(await session.waitForExit()).toBe(0);
      await session.waitForText('Nothing written.');
      expect(existsSync(file)).toBe(false);
      session.kill();

      session = start('ralphtool-init-yes');
      await session.waitForText('agent: codex');
      await session.waitForText(`Write this to ${file}? [y/N]`);
      session.keys('y', 'Enter');
      expect(await session.waitForExit()).toBe(0);
      await session.waitForText(`Wrote ${file}.`);
      expect(readFileSync(file, 'utf8')).toMatch(/^agent: codex$/m);
    },
  );
});
