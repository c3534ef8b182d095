import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../support/cli.js';
import { FAKE_AGENT, quote, RunFixture, stories, type Step } from '../../run/helpers.js';

// docs/contract.md, "Settings": the repository's and the user's settings files drive a run as
// the flags would, the project's instructions reach every prompt, and a run in flight keeps the
// settings it started with.

const CHANGE = 'settings';
const NODE = quote(process.execPath);
/** Passes until the agent writes broken.txt: a gate the agent's work fails. */
const GATE = `${NODE} -e "process.exit(require('fs').existsSync('broken.txt') ? 1 : 0)"`;
const BREAKS: Step[] = [
  { write: 'broken.txt', content: 'no\n' },
  { tick: 'all' },
  { signal: 'COMPLETE' },
];
const MENDS: Step[] = [
  { write: 'done.txt', content: 'yes\n' },
  { tick: 'all' },
  { signal: 'COMPLETE' },
];
const RULES = '- Run the gate before COMPLETE.\n- House rule 7: no tabs.';

let fixture: RunFixture | undefined;
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
});

/** The repository's settings and instructions, committed as a team would; the user's file. */
function settle(f: RunFixture, repoSettings: string, userSettings: string): Record<string, string> {
  f.write('.ralphtool/config.yaml', repoSettings);
  f.write('.ralphtool/instructions.md', `${RULES}\n`);
  f.git('add', '-A');
  f.git('commit', '-q', '-m', 'ralphtool settings');
  const xdg = path.join(f.scratch, 'xdg');
  mkdirSync(path.join(xdg, 'ralphtool'), { recursive: true });
  writeFileSync(path.join(xdg, 'ralphtool', 'config.yaml'), userSettings);
  return { XDG_CONFIG_HOME: xdg, HOME: path.join(f.scratch, 'home') };
}

const agentSetting = `agent-command: ${JSON.stringify(`${NODE} ${quote(FAKE_AGENT)}`)}`;

describe('ralphtool run with settings files', () => {
  it('runs the agent, the gate and the retries the files give; the instructions reach every prompt', async () => {
    const f = (fixture = new RunFixture(CHANGE, stories(1)));
    f.scenario({ '1-1': BREAKS, '1-2': MENDS });
    const home = settle(
      f,
      [agentSetting, `verify:\n  - ${JSON.stringify(GATE)}`, 'max-retries: 1', ''].join('\n'),
      // The user's own would allow no retry: the repository's file wins.
      'max-retries: 0\non-complete: keep\n',
    );
    const result = await runCli(['run', CHANGE], { cwd: f.dir, env: f.env(home) });
    expect(result.exitCode, result.stderr + result.stdout).toBe(0);
    // The gate of the file refused the first attempt: the verify setting was applied.
    expect(result.stdout).toMatch(/attempt 1 failed \(verify-failed\)/);
    for (const attempt of [1, 2]) {
      const prompt = readFileSync(path.join(f.runDir, 'prompts', `1-${attempt}.md`), 'utf8');
      expect(prompt).toContain(`## Project instructions`);
      expect(prompt).toContain(RULES);
    }
    expect(f.read('done.txt')).toBe('yes\n');
  });

  it('a resume keeps the agent and the gate the run started with, whatever the file says now', async () => {
    const f = (fixture = new RunFixture(CHANGE, stories(1)));
    f.scenario({ '1-1': BREAKS, '1-2': BREAKS });
    const home = settle(
      f,
      [
        agentSetting,
        `verify: ${JSON.stringify(GATE)}`,
        'max-retries: 0',
        'on-complete: keep',
        '',
      ].join('\n'),
      '',
    );
    const first = await runCli(['run', CHANGE], { cwd: f.dir, env: f.env(home) });
    expect(first.stdout).toMatch(/attempt 1 failed \(verify-failed\)/);
    // The team changes its file meanwhile: another agent program, a gate that always passes.
    f.write(
      '.ralphtool/config.yaml',
      'agent-command: no-such-agent-program\nverify: "true"\nmax-retries: 0\non-complete: keep\n',
    );
    const resumed = await runCli(['resume', CHANGE, '--max-retries', '1'], {
      cwd: f.dir,
      env: f.env(home),
    });
    // The recorded agent ran the second attempt, and the recorded gate refused it.
    expect(f.invoked('1', 2)).toBe(true);
    expect(resumed.stdout).toMatch(/attempt 2 failed \(verify-failed\)/);
    expect(resumed.stderr).toContain('--max-retries is now 1 (the run had 0)');
    expect(resumed.stderr).not.toContain('--verify is now');
    expect(resumed.stderr).not.toContain('--agent-command is now');
  });

  it('refuses a mistaken file with one line naming the file, the line and the key (exit 2)', async () => {
    const f = (fixture = new RunFixture(CHANGE, stories(1)));
    const home = settle(f, 'agent: claude\nmax-retires: 2\n', '');
    const result = await runCli(['run', CHANGE], { cwd: f.dir, env: f.env(home) });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe(
      `ralphtool: ${path.join(f.dir, '.ralphtool', 'config.yaml')}:2: unknown setting "max-retires" (did you mean max-retries?)\n`,
    );
    expect(f.invoked('1', 1)).toBe(false);
  });

  it('`config` says each setting and where it comes from; a flag wins', async () => {
    const f = (fixture = new RunFixture(CHANGE, stories(1)));
    const home = settle(f, 'max-retries: 2\nverify: [npm test]\n', 'max-cost: 4\nmax-retries: 9\n');
    const result = await runCli(['config', '--json', '--parallel', '3'], {
      cwd: f.dir,
      env: f.env(home),
    });
    expect(result.exitCode, result.stderr).toBe(0);
    const repoFile = path.join(f.dir, '.ralphtool', 'config.yaml');
    const userFile = path.join(home.XDG_CONFIG_HOME ?? '', 'ralphtool', 'config.yaml');
    const said = JSON.parse(result.stdout) as {
      files: unknown;
      settings: Record<string, unknown>;
    };
    expect(said.files).toEqual({
      repository: { path: repoFile, present: true },
      user: { path: userFile, present: true },
    });
    expect(said.settings['max-retries']).toEqual({
      value: '2',
      from: 'repository',
      file: repoFile,
      line: 1,
    });
    expect(said.settings['max-cost']).toEqual({
      value: '4',
      from: 'user',
      file: userFile,
      line: 1,
    });
    expect(said.settings.parallel).toEqual({ value: '3', from: 'flag' });
    expect(said.settings.agent).toEqual({ value: null, from: 'default', default: 'claude' });
    const plain = await runCli(['config'], { cwd: f.dir, env: f.env(home) });
    expect(plain.stdout).toMatch(
      new RegExp(`verify +"npm test" +${repoFile.replace(/[.]/g, '\\.')}:2`),
    );
  });
});
