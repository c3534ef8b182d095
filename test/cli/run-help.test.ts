import { describe, expect, it } from 'vitest';
import { Command } from 'commander';
import { runCliInProcess } from '../support/cli-in-process.js';
import { groupOptions, OTHER_GROUP, ungroupedOptions } from '../../src/cli/help-groups.js';

// docs/contract.md, "`run <change>` and `resume <change>`": their --help shows the options in
// groups (src/cli/help-groups.ts), one line each in one table.

/** The command's help as printed into a pipe (80 columns). */
async function help(command: string): Promise<string> {
  const result = await runCliInProcess([command, '--help'], {
    cwd: process.cwd(),
  });
  expect(result.exitCode, result.stderr).toBe(0);
  return result.stdout;
}

describe('run --help and resume --help', () => {
  it('run --help shows its options in groups', async () => {
    expect(await help('run')).toMatchSnapshot();
  });

  it('every option of run and resume has a group (a new option: one line in help-groups.ts)', async () => {
    for (const command of ['run', 'resume']) {
      const text = await help(command);
      expect(text).not.toContain(OTHER_GROUP);
      for (const heading of ['Agent:', 'Judging an attempt:', 'Limits and budgets:', 'Remote:']) {
        expect(text).toContain(`\n${heading}\n`);
      }
    }
    expect(await help('resume')).toContain('\nAnswering a question (resume):\n  --answer <text>');
  });

  it('an option no line names is shown last, under its own heading, and named by the check', () => {
    const cmd = groupOptions(
      new Command('x').option('--brand-new', 'an option from elsewhere').option('--json', 'json'),
    );
    expect(ungroupedOptions(cmd)).toEqual(['--brand-new']);
    const text = cmd.helpInformation();
    expect(text.indexOf('Output and notifications:')).toBeLessThan(text.indexOf(OTHER_GROUP));
  });
});
