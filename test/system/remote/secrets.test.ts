import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanGitEnv } from '../../support/temp-repo.js';
import { stories, succeed } from '../../run/helpers.js';
import { RemoteWorld } from './world.js';

// Nothing of the environment and no ignored file ever reaches the remote, whatever the agent
// repeats: every object the remote holds is searched.

const CHANGE = 'secretive';
const TOKEN = 's3cr3t-token-0123456789';
const DOTENV = 'hunter2-from-the-dotenv-file';
let world: RemoteWorld | undefined;
afterEach(() => {
  world?.remove();
  world = undefined;
});

/** Every object in the remote, as one text. */
function everythingOn(w: RemoteWorld): string {
  return execFileSync('git', ['cat-file', '--batch-all-objects', '--batch'], {
    cwd: w.origin,
    env: cleanGitEnv(),
    encoding: 'latin1',
    maxBuffer: 64 * 1024 * 1024,
  });
}

describe('secrets and a remote', { timeout: 240_000 }, () => {
  it('an env secret the agent repeats is redacted from the record; ignored files never leave', async () => {
    world = new RemoteWorld(CHANGE, stories(1), { '.gitignore': '.env*\n' });
    const w = world;
    writeFileSync(path.join(w.dir, '.env'), `DB_PASSWORD=${DOTENV}\n`);
    const learnings = path.join(w.runDir, 'learnings.md');
    w.scenario({
      '1-1': [
        { say: `the token is ${TOKEN}` },
        { append: learnings, content: `- auth works with ${TOKEN}\n` },
        { write: '.env.local', content: `API=${TOKEN}\nDB=${DOTENV}\n` },
        { signal: `FAILED: the API refused ${TOKEN} and ${DOTENV}` },
      ],
      '1-2': [
        { write: '.env.local', content: `again ${DOTENV}\n` },
        ...succeed('src/one.txt', 'one\n'),
      ],
    });
    const result = await w.run(['--push', 'origin', '--on-complete', 'keep', '--json'], {
      env: { MY_API_TOKEN: TOKEN },
    });
    expect(result.exitCode, result.stderr).toBe(0);
    // The agent did spread them: in its transcript and the learnings on this machine.
    expect(readFileSync(learnings, 'utf8')).toContain(TOKEN);
    expect(result.stdout).toContain(TOKEN);

    const remote = everythingOn(w);
    expect(remote).toContain('checkpoint: 1'); // the search does read the remote's objects
    expect(remote).not.toContain(TOKEN);
    expect(remote).not.toContain(DOTENV);
    expect(w.remote('show', `refs/ralphtool/${CHANGE}/record:learnings.md`)).toContain(
      '[redacted $MY_API_TOKEN]',
    );
  });

  it('a secret the agent writes into a file fails the attempt, naming the file; it never reaches the remote', async () => {
    world = new RemoteWorld(CHANGE, stories(1), { '.gitignore': '.env*\n' });
    const w = world;
    writeFileSync(
      path.join(w.dir, '.env'),
      `STRIPE_SECRET_KEY=${DOTENV}\nHOST=db.internal.example\n`,
    );
    w.scenario({
      '1-1': [
        { write: 'src/config.ts', content: `export const key = '${DOTENV}';\n` },
        // A dotenv value whose name says nothing secret (a host) is no secret: never a failure.
        { write: 'src/host.ts', content: "export const host = 'db.internal.example';\n" },
        ...succeed('src/one.txt', 'one\n'),
      ],
      '1-2': [
        { write: 'src/config.ts', content: 'export const key = process.env.STRIPE_SECRET_KEY;\n' },
        { write: 'src/host.ts', content: "export const host = 'db.internal.example';\n" },
        ...succeed('src/one.txt', 'one\n'),
      ],
    });
    const result = await w.run(['--push', 'origin', '--on-complete', 'keep']);
    expect(result.exitCode, result.stderr).toBe(0);
    // The first attempt failed for it, and the retry was told which file and which secret.
    expect((w.state().stories as Record<string, unknown>)['1']).toMatchObject({
      attempts: 2,
      completed: true,
    });
    const retryPrompt = w.prompt('1', 2);
    expect(retryPrompt).toContain(
      'wrote the value of STRIPE_SECRET_KEY (a secret) into src/config.ts',
    );
    expect(retryPrompt).not.toContain(DOTENV);
    expect(result.stdout).toContain('secret-written');
    // Its saved attempt stays here, said once, never pushed; the remote has no trace of the value.
    const saved = `refs/ralphtool/${CHANGE}/attempts/1-1`;
    expect(w.git('show', `${saved}:src/config.ts`)).toContain(DOTENV);
    expect(result.stdout).toContain(
      `the saved attempt ${saved} holds a secret's value (src/config.ts)`,
    );
    expect(w.remoteRefs().has(saved)).toBe(false);
    const remote = everythingOn(w);
    expect(remote).toContain('checkpoint: 1');
    expect(remote).not.toContain(DOTENV);
    expect(w.remote('show', `ralph/${CHANGE}:src/host.ts`)).toContain('db.internal.example');
  });
});
