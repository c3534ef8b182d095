import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../support/cli.js';
import { printedCommands } from '../../support/printed-command.js';
import { stories, succeed } from '../../run/helpers.js';
import { RemoteWorld } from './world.js';

// docs/contract.md, "Every step on the remote": `run --push` never sends the user's uncommitted
// or untracked files with the run's first commit; the ways on it names work as named.

const CHANGE = 'private';
const KEY = 'AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY';
let world: RemoteWorld | undefined;
afterEach(() => {
  world?.remove();
  world = undefined;
});

/** Every blob the remote holds, as text (whatever ref reaches it). */
function remoteText(w: RemoteWorld): string {
  const objects = w.remote('rev-list', '--objects', '--all').split('\n');
  return objects
    .map((line) => line.split(' ')[0] ?? '')
    .filter((sha) => sha !== '' && w.remote('cat-file', '-t', sha).trim() === 'blob')
    .map((sha) => w.remote('cat-file', 'blob', sha))
    .join('\n');
}

describe('run --push with the user’s files not committed', { timeout: 240_000 }, () => {
  const scenario = { '1-1': succeed('src/one.txt', 'one\n') };
  const changes = ['an untracked file', 'a modified tracked file'] as const;

  for (const kind of changes) {
    it(`${kind}: refused before anything changes here or there (exit 2), the file named`, async () => {
      world = new RemoteWorld(CHANGE, stories(1), { 'README.md': 'hello\n' });
      const w = world.scenario(scenario);
      if (kind === 'an untracked file') w.write('local.env', `${KEY}\n`);
      else w.write('README.md', `hello\n${KEY}\n`);
      const refsBefore = w.git('for-each-ref');
      const remoteBefore = w.remote('for-each-ref');

      const refused = await w.run(['--push', 'origin']);
      expect(refused.exitCode).toBe(2);
      const line = refused.stderr.trim();
      expect(line.split('\n')).toHaveLength(1);
      expect(line).toContain(kind === 'an untracked file' ? '"local.env"' : '"README.md"');
      expect(line).toContain('`git stash --include-untracked`');
      expect(line).toContain('`--worktree`');
      expect(w.git('for-each-ref')).toBe(refsBefore);
      expect(w.remote('for-each-ref')).toBe(remoteBefore);
      expect(w.currentBranch()).toBe('main');
      expect(w.exists(`.git/ralphtool/${CHANGE}/state.json`)).toBe(false);
    });
  }

  it('the way on with --worktree, as named: the run goes and pushes, the file stays home', async () => {
    world = new RemoteWorld(CHANGE, stories(1));
    const w = world.scenario(scenario);
    w.write('local.env', `${KEY}\n`);
    const result = await w.run(['--push', 'origin', '--worktree', '--on-complete', 'keep']);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(w.read('local.env')).toBe(`${KEY}\n`);
    expect(w.remoteRefs().has(`refs/heads/ralph/${CHANGE}`)).toBe(true);
    expect(remoteText(w)).toContain('one\n');
    expect(remoteText(w)).not.toContain('wJalrXUtnFEMI');
  });

  it('the way on with the stash command, as named: the run goes, nothing of the file is pushed', async () => {
    world = new RemoteWorld(CHANGE, stories(1));
    const w = world.scenario(scenario);
    w.write('local.env', `${KEY}\n`);
    w.git('stash', '--include-untracked');
    const result = await w.run(['--push', 'origin', '--on-complete', 'keep']);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(remoteText(w)).toContain('one\n');
    expect(remoteText(w)).not.toContain('wJalrXUtnFEMI');
  });

  it('resume --push of a run whose first commit holds them: refused (exit 2), named; the run goes on here as printed', async () => {
    world = new RemoteWorld(CHANGE, stories(1));
    const w = world.scenario(scenario);
    w.write('local.env', `${KEY}\n`);
    // A local run (its "initial state" commit holds local.env) stopped before its first attempt.
    const local = await w.run(['--max-duration', '1ms', '--on-complete', 'keep']);
    expect(local.exitCode, local.stderr).toBe(5);
    const remoteBefore = w.remote('for-each-ref');

    const refused = await w.on(w.a, ['resume', CHANGE, '--push', 'origin']);
    expect(refused.exitCode).toBe(2);
    const line = refused.stderr.trim();
    expect(line.split('\n')).toHaveLength(1);
    expect(line).toContain('"local.env"');
    expect(w.remote('for-each-ref')).toBe(remoteBefore);

    const advice = /`ralphtool (resume [^`]+)`/.exec(line)?.[1];
    expect(advice).toBe(`resume ${CHANGE}`);
    const resumed = await runCli((advice ?? '').split(' '), { cwd: w.dir, env: w.env() });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(w.remote('for-each-ref')).toBe(remoteBefore);
    expect(remoteText(w)).not.toContain('wJalrXUtnFEMI');
  });

  it('the way on with --include-uncommitted, as named: the files go with the first commit', async () => {
    world = new RemoteWorld(CHANGE, stories(1));
    const w = world.scenario(scenario);
    w.write('notes.md', 'my notes\n');
    const refused = await w.run(['--push', 'origin']);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('`--include-uncommitted`');
    const result = await w.run([
      '--push',
      'origin',
      '--include-uncommitted',
      '--on-complete',
      'keep',
    ]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(w.remote('show', `ralph/${CHANGE}:notes.md`)).toBe('my notes\n');
  });

  it('--include-uncommitted with a file holding a secret’s value: refused (exit 2), the file and the secret named, never the value; the printed stash works', async () => {
    world = new RemoteWorld(CHANGE, stories(1));
    const w = world.scenario(scenario);
    const [name, value] = KEY.split('=') as [string, string];
    w.write('local config.env', `${KEY}\n`);
    const remoteBefore = w.remote('for-each-ref');
    const env = { [name]: value };
    const refused = await w.run(['--push', 'origin', '--include-uncommitted'], { env });
    expect(refused.exitCode).toBe(2);
    const line = refused.stderr.trim();
    expect(line.split('\n')).toHaveLength(1);
    expect(line).toContain(`"local config.env" holds the value of ${name}`);
    expect(line).not.toContain(value);
    expect(w.remote('for-each-ref')).toBe(remoteBefore);
    expect(w.exists(`.git/ralphtool/${CHANGE}/state.json`)).toBe(false);

    const stash = printedCommands(line, 'git')[0] ?? [];
    expect(stash).toEqual(['stash', 'push', '--include-untracked', '--', 'local config.env']);
    w.git(...stash);
    const result = await w.run(
      ['--push', 'origin', '--include-uncommitted', '--on-complete', 'keep'],
      {
        env,
      },
    );
    expect(result.exitCode, result.stderr).toBe(0);
    expect(remoteText(w)).not.toContain(value);
  });
});
