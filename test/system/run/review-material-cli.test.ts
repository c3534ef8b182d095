import { afterEach, describe, expect, it } from 'vitest';
import { execProgram } from '../../../src/process/exec.js';
import { runCli } from '../../support/cli.js';
import { quote, RunFixture, stories, succeed } from '../../run/helpers.js';

// What reaches a reviewer of a real run (docs/contract.md, "Accept a story" and "`report`"):
// each checkpoint commit's body and trailers, and `report --markdown`, the pull request's body.

const CHANGE = 'reviewed-change';
const PASSING = `${quote(process.execPath)} -e "console.log('1 passed')"`;

let fixture: RunFixture | undefined;
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
});

describe('a run made for review', () => {
  it('gives each checkpoint a body with trailers, and report --markdown the attempts and files', async () => {
    const f = (fixture = new RunFixture(CHANGE, stories(2)).scenario({
      '1-1': [
        { write: 'src/half.txt', content: 'half\n' },
        { signal: 'FAILED: the parser is not there yet' },
      ],
      '1-2': succeed('src/one.txt', 'one\ntwo\n'),
      '2-*': succeed('src/two.txt', 'two\n'),
    }));
    const run = await f.run(['--json', '--on-complete', 'keep', '--verify', PASSING]);
    expect(run.exitCode, run.stderr).toBe(0);

    // The subject stays `checkpoint: <id>`; the body tells the story; git reads the trailers.
    const subjects = f.git('log', '--format=%s', '-2', `ralph/${CHANGE}`).trim().split('\n');
    expect(subjects).toEqual(['checkpoint: 2', 'checkpoint: 1']);
    const body = f.git('log', '--format=%b', '-1', `ralph/${CHANGE}~1`);
    expect(body).toContain('Story 1');
    expect(body).toMatch(/- \[x\] 1\.1 /);
    expect(body).toContain('Attempts: 2 (accepted on attempt 2)');
    expect(body).toContain('- attempt 1 failed (failed-signal): the parser is not there yet');
    expect(body).toContain(`- passed: ${PASSING}`);
    const trailers = f.git(
      'log',
      '--format=%(trailers:key=Ralphtool-Change,key=Ralphtool-Story,valueonly,separator=%x2C)',
      '-2',
      `ralph/${CHANGE}`,
    );
    expect(trailers.trim().split('\n')).toEqual([`${CHANGE},2`, `${CHANGE},1`]);

    const report = await runCli(['report', CHANGE, '--markdown'], { cwd: f.dir, env: f.env() });
    expect(report.exitCode, report.stderr).toBe(0);
    const md = report.stdout;
    expect(md).toContain('accepted on attempt 2');
    expect(md).toContain('- attempt 1 failed (failed-signal): the parser is not there yet');
    expect(md).toContain(`- verify passed: \`${PASSING}\``);
    expect(md).toContain('- tests changed: no');
    // The files the change touched: its own work and the ticks in tasks.md, never a reverted file.
    expect(md).toContain('| `src/one.txt` | 2 | 0 |');
    expect(md).toContain('| `src/two.txt` | 1 | 0 |');
    expect(md).toContain(`openspec/changes/${CHANGE}/tasks.md`);
    expect(md).not.toContain('src/half.txt');
    // The same diffstat as git's own.
    const stat = await execProgram('git', ['diff', '--numstat', 'main', `ralph/${CHANGE}`], {
      cwd: f.dir,
      baseEnv: process.env,
    });
    expect(md).toContain(`### Files changed (${stat.stdout.trim().split('\n').length},`);
  });
});
