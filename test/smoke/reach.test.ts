import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execProgram } from '../../src/process/exec.js';
import { CLI_PATH } from '../support/cli.js';

/**
 * ralphtool run the way npx runs it: node on the script behind node_modules/.bin/ralphtool,
 * with a PATH that has neither `ralphtool` nor `openspec` on it (only git).
 */
describe('messages name the commands the way the user can reach them', () => {
  let root: string;
  let viaNpx: string;
  let bin: string;
  let gitDir: string;

  beforeEach(() => {
    root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'ralphtool-reach-')));
    viaNpx = path.join(root, 'node_modules', '.bin', 'ralphtool');
    mkdirSync(path.dirname(viaNpx), { recursive: true });
    symlinkSync(CLI_PATH, viaNpx);
    bin = path.join(root, 'bin');
    mkdirSync(bin);
    gitDir = path.dirname(
      execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim(),
    );
    mkdirSync(path.join(root, 'project', 'openspec', 'changes', 'add-thing'), { recursive: true });
    mkdirSync(path.join(root, 'empty'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const run = async (
    script: string,
    args: string[],
    cwd: string,
    env: Record<string, string | undefined> = {},
  ) =>
    execProgram(process.execPath, [script, ...args], {
      baseEnv: {},
      cwd,
      env: { PATH: `${bin}${path.delimiter}${gitDir}`, NO_COLOR: '1', HOME: root, ...env },
      timeoutMs: 60_000,
      reject: false,
    });

  it('says npx ralphtool and npx @fission-ai/openspec when run through npx with neither on PATH', async () => {
    const empty = path.join(root, 'empty');
    const list = await run(viaNpx, ['list'], empty);
    expect(list.exitCode).toBe(2);
    expect(list.stderr).toContain('run `npx @fission-ai/openspec init` first');
    const project = path.join(root, 'project');
    const show = await run(viaNpx, ['show', 'nope'], project);
    expect(show.exitCode).toBe(2);
    expect(show.stderr).toContain('(see `npx ralphtool list`)');
    const typo = await run(viaNpx, ['lst'], project);
    expect(typo.stderr).toContain('(`npx ralphtool --help` tells more)');
    // Run from a checkout (not from node_modules) the name is all there is, even under npx's
    // environment, which anything npx started inherits.
    const direct = await run(CLI_PATH, ['show', 'nope'], project, { npm_command: 'exec' });
    expect(direct.stderr).toContain('(see `ralphtool list`)');
    const doctor = await run(viaNpx, ['doctor'], empty);
    expect(doctor.stdout).toContain(
      'fix: set OpenSpec up in your project with `npx @fission-ai/openspec init`, then `npx @fission-ai/openspec new change <name>`',
    );
  });

  it('says ralphtool and openspec when they are on PATH', async () => {
    for (const name of ['ralphtool', 'openspec']) {
      writeFileSync(path.join(bin, name), '#!/bin/sh\nexit 0\n');
      chmodSync(path.join(bin, name), 0o755);
    }
    const list = await run(viaNpx, ['list'], path.join(root, 'empty'));
    expect(list.stderr).toContain('run `openspec init` first');
    const show = await run(viaNpx, ['show', 'nope'], path.join(root, 'project'));
    expect(show.stderr).toContain('(see `ralphtool list`)');
  });
});
