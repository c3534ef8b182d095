import { readFileSync } from 'node:fs';
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
