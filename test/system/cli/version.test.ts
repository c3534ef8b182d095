import { readFileSync } from 'node:fs';
import path from 'node:path';
import { execProgram } from '../../../src/process/exec.js';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../support/cli.js';

// `--version` is answered before the program is loaded (cli/main.ts); with anything beside it,
// the program (commander) answers, with the same words.

const version = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;

describe('ralphtool --version', () => {
  it('prints the package version, exit 0: alone (before the program loads) and after -C (the program answers)', async () => {
    for (const args of [['--version'], ['-C', '.', '--version']]) {
      const result = await runCli(args, { cwd: process.cwd() });
      expect({ args, out: result.stdout, err: result.stderr, code: result.exitCode }).toEqual({
        args,
        out: `${version}\n`,
        err: '',
        code: 0,
      });
    }
  });
});

// The Action's bundle is split into chunks beside action/dist/ralphtool.mjs (scripts/bundle.mjs):
// code that finds files relative to its own module (package.json for the version) must find
// them from whichever chunk it landed in. Chunks once in a subfolder read no package.json and
// said 0.0.0.
describe("the Action's bundle", () => {
  it('prints the version, the help and a refusal as the built modules do', async () => {
    const bundle = path.resolve('action/dist/ralphtool.mjs');
    for (const args of [['--version'], ['-C', '.', '--version'], ['--help'], ['list', '--help']]) {
      const fromBundle = await execProgram(process.execPath, [bundle, ...args], {
        baseEnv: process.env,
        cwd: process.cwd(),
        env: { NO_COLOR: '1', FORCE_COLOR: undefined },
        reject: false,
      });
      const fromDist = await runCli(args, { cwd: process.cwd() });
      expect({ args, out: fromBundle.stdout, code: fromBundle.exitCode }).toEqual({
        args,
        out: fromDist.stdout,
        code: 0,
      });
    }
    const versionOut = await runCli(['--version'], { cwd: process.cwd() });
    expect(versionOut.stdout).toBe(`${version}\n`);
  });
});
