import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { execProgram } from '../../../src/process/exec.js';
import { runCli } from '../../support/cli.js';
import { printedCommands } from '../../support/printed-command.js';
import { RunFixture, stories, succeed } from '../../run/helpers.js';

// `openspec validate <change>` before the first story (docs/contract.md, "A change is validated
// first"): the real CLI when it is installed, else ralphtool's own reading; an invalid change is
// refused (exit 2) before any branch is made, and the command the refusal names works as printed.

const CHANGE = 'checked-change';
const SPEC = `openspec/changes/${CHANGE}/specs/demo/spec.md`;
const OPENSPEC_BIN = path.resolve('node_modules/.bin');
const NODE_BIN = path.dirname(process.execPath);
const WITH_OPENSPEC = `${OPENSPEC_BIN}:${NODE_BIN}:/usr/bin:/bin`;
const WITHOUT_OPENSPEC = `${NODE_BIN}:/usr/bin:/bin`;

/** Specs OpenSpec refuses, each for its own reason. */
const INVALID: Record<string, string> = {
  'a requirement without a scenario':
    '## ADDED Requirements\n\n### Requirement: Bare\nThe system SHALL be bare.\n',
  'a requirement outside any delta header':
    '# Demo\n\n### Requirement: Loose\nThe system SHALL be loose.\n\n#### Scenario: S\n- **WHEN** a\n- **THEN** b\n',
};

let fixture: RunFixture | undefined;
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
});

function snapshot(f: RunFixture): Record<string, unknown> {
  return {
    head: f.git('rev-parse', 'HEAD'),
    branch: f.currentBranch(),
    branches: f.git('branch', '--list'),
    refs: f.git('for-each-ref'),
    status: f.status(),
    runsDir: existsSync(path.join(f.dir, '.git', 'ralphtool')),
  };
}

describe.each([
  ['the openspec CLI', WITH_OPENSPEC, 'openspec'],
  ["ralphtool's own reader", WITHOUT_OPENSPEC, 'ralphtool'],
])('an invalid change is refused before any branch is made, by %s', (_name, PATH, checker) => {
  for (const [why, spec] of Object.entries(INVALID)) {
    it(`refuses ${why} (exit 2), the repository untouched; the printed check runs`, async () => {
      fixture = new RunFixture(CHANGE, stories(1), { [SPEC]: spec }).scenario({
        '*': succeed('src/x.txt', 'x\n'),
      });
      const f = fixture;
      const before = snapshot(f);
      const result = await f.run(['--json'], { env: { PATH } });
      expect(result.exitCode).toBe(2);
      // --json: the refusal is the one event, fatal.
      expect(result.events()).toMatchObject([{ type: 'error', fatal: true }]);
      const lines = result.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`change ${CHANGE} is not valid: demo/spec.md: `);
      expect(f.invoked('1', 1)).toBe(false);
      expect(snapshot(f)).toEqual(before);
      expect(before.runsDir).toBe(false);

      const [check] = printedCommands(result.stderr, checker);
      expect(check).toBeDefined();
      const args = check ?? [];
      const ran =
        checker === 'openspec'
          ? await execProgram(path.join(OPENSPEC_BIN, 'openspec'), args, {
              cwd: f.dir,
              baseEnv: process.env,
              env: { PATH, OPENSPEC_TELEMETRY: '0' },
              reject: false,
            })
          : await runCli(args, { cwd: f.dir, env: f.env({ PATH }) });
      // The check names the requirement the refusal is about.
      expect(`${ran.stdout}${ran.stderr}`).toMatch(/Bare|Loose/);
      expect(snapshot(f)).toEqual(before);
    });
  }

  it('runs a valid change (warnings do not refuse)', async () => {
    fixture = new RunFixture(CHANGE, stories(1)).scenario({ '*': succeed('src/x.txt', 'x\n') });
    const result = await fixture.run(['--json', '--on-complete', 'keep'], { env: { PATH } });
    expect(result.exitCode).toBe(0);
  });
});

it('a change with no specs/ folder is not validated and runs', async () => {
  fixture = new RunFixture(CHANGE, stories(1)).scenario({ '*': succeed('src/x.txt', 'x\n') });
  fixture.git('rm', '-q', '-r', `openspec/changes/${CHANGE}/specs`);
  fixture.git('commit', '-q', '-m', 'no specs');
  const result = await fixture.run(['--json', '--on-complete', 'keep'], {
    env: { PATH: WITH_OPENSPEC },
  });
  expect(result.exitCode).toBe(0);
});
