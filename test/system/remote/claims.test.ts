import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LiveCli } from '../../support/live-cli.js';
import { fakeAgentFlags } from '../../support/fake-agent.js';
import { cleanGitEnv } from '../../support/temp-repo.js';
import { eventually, stories, succeed } from '../../run/helpers.js';
import { RemoteWorld, type Machine } from './world.js';

// Claims (docs/contract.md, "Claims"): one machine per change, decided by the remote's atomic
// ref update (docs/git-protocol.md, "Claims"). The machines are clones of a bare repository on this host.

const CHANGE = 'claimed';
const CLAIM = `refs/ralphtool/${CHANGE}/claim`;
const RACER = path.resolve('test/system/remote/support/race-claim.mjs');
let world: RemoteWorld | undefined;
const lives: LiveCli[] = [];
afterEach(async () => {
  for (const live of lives.splice(0)) await live.kill9().catch(() => undefined);
  world?.remove();
  world = undefined;
});

/** Machine A's run, live, stopped in story 1 until `go` exists. */
function startHeld(w: RemoteWorld, args: readonly string[] = []): { live: LiveCli; go: string } {
  const started = path.join(w.scratch, 'started');
  const go = path.join(w.scratch, 'go');
  w.scenario({
    '1-1': [
      { write: 'src/one.txt', content: 'one\n' },
      { tick: 'all' },
      { write: started, content: '' },
      { waitFor: go },
      { signal: 'COMPLETE' },
    ],
    '2-1': succeed('src/two.txt', 'two\n'),
  });
  const live = new LiveCli(
    [
      'run',
      CHANGE,
      ...fakeAgentFlags(),
      '--push',
      'origin',
      '--json',
      '--on-complete',
      'keep',
      ...args,
    ],
    w.dir,
    w.env(),
  );
  lives.push(live);
  return { live, go };
}

/** A claim written by hand into the remote, as another machine's ralphtool would. */
function plantClaim(w: RemoteWorld, info: Record<string, unknown>): string {
  const env = cleanGitEnv();
  const run = (args: string[], input?: string): string =>
    execFileSync('git', args, { cwd: w.dir, env, input, encoding: 'utf8' }).trim();
  const blob = run(['hash-object', '-w', '--stdin'], `${JSON.stringify(info)}\n`);
  const tree = run(['mktree'], `100644 blob ${blob}\tclaim.json\n`);
  const commit = run(['commit-tree', tree, '-m', 'ralphtool claim: planted']);
  run(['push', '-q', '--force', 'origin', `${commit}:${CLAIM}`]);
  return commit;
}

/** The control characters of a text (a line break and a tab aside), as their codes. */
function controlCharacters(text: string): number[] {
  return [...text]
    .map((c) => c.charCodeAt(0))
    .filter((code) => (code < 0x20 && code !== 0x0a && code !== 0x09) || code === 0x7f);
}

function claimOf(host: string, pid: number, heartbeatAt: Date): Record<string, unknown> {
  return {
    change: CHANGE,
    host,
    pid,
    token: 'planted',
    startedAt: heartbeatAt.toISOString(),
    heartbeatAt: heartbeatAt.toISOString(),
  };
}

describe('a change claimed by a running machine', { timeout: 240_000 }, () => {
  it('refuses a second machine (exit 1, the holder named), then is released at the end', async () => {
    world = new RemoteWorld(CHANGE, stories(2));
    const w = world;
    const { live, go } = startHeld(w);
    await live.waitUntil(() => existsSync(path.join(w.scratch, 'started')));
    expect(w.remoteRefs().has(CLAIM)).toBe(true);

    const b = w.clone('b');
    const refused = await w.on(b, ['run', CHANGE, '--push', 'origin', '--on-complete', 'keep']);
    expect(refused.exitCode, refused.stderr).toBe(1);
    expect(refused.stderr).toContain(
      `${CHANGE} is claimed on origin by ${os.hostname()} (pid ${live.pid}`,
    );
    expect(refused.stderr).toMatch(/last heartbeat \d+(\.\d+)?s ago/);
    expect(refused.stderr).not.toMatch(/\n\s+at /);
    // Nothing changed on machine B.
    expect(b.git('branch', '--list', `ralph/${CHANGE}`).trim()).toBe('');
    expect(existsSync(path.join(b.dir, '.git', 'ralphtool', CHANGE))).toBe(false);

    writeFileSync(go, '');
    expect((await live.exited).code, live.stderr).toBe(0);
    expect(live.types()[0]).toBe('claim.taken');
    expect(w.remoteRefs().has(CLAIM)).toBe(false);
  });
});

describe('a claim that may be taken over', { timeout: 240_000 }, () => {
  it('a stale heartbeat (older than --claim-ttl) is taken over, with a warning and the event', async () => {
    world = new RemoteWorld(CHANGE, stories(1));
    const w = world.scenario({ '1-1': succeed('src/one.txt', 'one\n') });
    plantClaim(w, claimOf('runner-7', 4242, new Date(Date.now() - 3_600_000)));
    const result = await w.run([
      '--push',
      'origin',
      '--claim-ttl',
      '30m',
      '--json',
      '--on-complete',
      'keep',
    ]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      'took over the claim of claimed on origin from runner-7 (pid 4242',
    );
    const taken = result.stdout
      .split('\n')
      .filter((l) => l.includes('"claim.taken"'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(taken).toHaveLength(1);
    expect(taken[0]).toMatchObject({
      remote: 'origin',
      tookOverFrom: { host: 'runner-7', pid: 4242 },
    });
    expect(w.remoteRefs().has(CLAIM)).toBe(false);
  });

  it('a fresh claim of another host is refused, and the repository is untouched', async () => {
    world = new RemoteWorld(CHANGE, stories(1));
    const w = world.scenario({ '1-1': succeed('src/one.txt', 'one\n') });
    const planted = plantClaim(w, claimOf('runner-7', 4242, new Date()));
    const result = await w.run(['--push', 'origin', '--on-complete', 'keep']);
    expect(result.exitCode, result.stderr).toBe(1);
    expect(result.stderr).toContain('claimed on origin by runner-7 (pid 4242');
    expect(w.branchExists(`ralph/${CHANGE}`)).toBe(false);
    expect(w.currentBranch()).toBe('main');
    expect(w.remoteRefs().get(CLAIM)).toBe(planted);
  });

  it('a host name with terminal control sequences is never printed raw: in the refusal, in the take-over warning', async () => {
    world = new RemoteWorld(CHANGE, stories(1));
    const w = world.scenario({ '1-1': succeed('src/one.txt', 'one\n') });
    // A window title set, the screen cleared, a bell: what a hostile claim could carry.
    const host = 'evil\u001b]0;pwned\u0007\u001b[2Jhost';
    plantClaim(w, claimOf(host, 4242, new Date()));
    const refused = await w.run(['--push', 'origin', '--on-complete', 'keep']);
    expect(refused.exitCode, refused.stderr).toBe(1);
    expect(refused.stderr).toContain('claimed on origin by evil');
    expect(controlCharacters(refused.stderr)).toEqual([]);

    plantClaim(w, claimOf(host, 4242, new Date(Date.now() - 60 * 60_000)));
    const took = await w.run(['--push', 'origin', '--on-complete', 'keep']);
    expect(took.exitCode, took.stderr).toBe(0);
    expect(took.stderr).toContain('took over the claim of');
    expect(controlCharacters(took.stderr)).toEqual([]);
  });

  it('an unreadable claim is never guessed at: refused', async () => {
    world = new RemoteWorld(CHANGE, stories(1));
    const w = world.scenario({ '1-1': succeed('src/one.txt', 'one\n') });
    plantClaim(w, { written: 'by a newer ralphtool' });
    const result = await w.run(['--push', 'origin', '--claim-ttl', '1s', '--on-complete', 'keep']);
    expect(result.exitCode, result.stderr).toBe(1);
    expect(result.stderr).toContain('a claim ralphtool cannot read');
  });

  it("this host's claim whose process is gone (a crash here) is taken over at once", async () => {
    world = new RemoteWorld(CHANGE, stories(1));
    const w = world.scenario({ '1-1': succeed('src/one.txt', 'one\n') });
    const gone = spawn(process.execPath, ['-e', '']);
    const pid = gone.pid ?? 0;
    await new Promise((resolve) => gone.on('exit', resolve));
    plantClaim(w, claimOf(os.hostname(), pid, new Date()));
    const result = await w.run(['--push', 'origin', '--on-complete', 'keep']);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toContain(`its process (pid ${pid}) on this host is gone`);
  });
});

describe('a claim lost while the run goes on', { timeout: 240_000 }, () => {
  it('stops the run (exit 1, resumable) and nothing more is pushed from it', async () => {
    world = new RemoteWorld(CHANGE, stories(2));
    const w = world;
    // A short TTL: heartbeats every second.
    const { live, go } = startHeld(w, ['--claim-ttl', '3s']);
    await live.waitUntil(() => existsSync(path.join(w.scratch, 'started')));
    const first = w.remoteRefs().get(CLAIM);
    // The heartbeat moves the claim on the remote.
    expect(await eventually(() => w.remoteRefs().get(CLAIM) !== first, 60_000)).toBe(true);

    // The run's first push (its branch) is on the remote before the claim changes hands: on a
    // loaded machine it may come later than a heartbeat, and a lost claim pushes nothing more.
    await live.waitUntil(() => live.events.some((e) => e.type === 'remote.pushed'));
    plantClaim(w, claimOf('runner-9', 99, new Date()));
    const ended = await live.exited;
    // A push already on its way when the claim changed hands may still land (git checks a lease
    // when it connects); once the loss is seen, nothing more is pushed: the run's refs on the
    // remote stay as they are while the held agent is let go and the run is long over.
    const before = w.remoteRefs(`refs/ralphtool/${CHANGE}/`);
    expect(ended.code, live.stderr).toBe(1);
    expect(live.stderr).toContain('was taken over by runner-9 (pid 99)');
    expect(live.events.some((e) => e.type === 'claim.lost')).toBe(true);
    writeFileSync(go, '');
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    // Recorded, resumable; nothing of the run pushed after its end.
    expect(w.state()).toMatchObject({ status: 'active' });
    expect(w.remoteRefs(`refs/ralphtool/${CHANGE}/`)).toEqual(before);
    expect(w.remoteRefs().has(`refs/heads/ralph/${CHANGE}`)).toBe(true);
    expect(w.git('status', '--porcelain').trim()).toBe('');
  });
});

describe('two processes racing for the same claim', { timeout: 240_000 }, () => {
  it('exactly one wins, every round (100 rounds)', async () => {
    world = new RemoteWorld(CHANGE, stories(1));
    const w = world;
    const machines: Machine[] = [w.a, w.clone('b')];
    const round = async (i: number): Promise<string[]> => {
      const change = `race-${i}`;
      const racers = machines.map((m) =>
        spawn(process.execPath, [RACER, m.dir, 'origin', change], {
          env: cleanGitEnv(),
          stdio: ['pipe', 'pipe', 'inherit'],
        }),
      );
      const said = await Promise.all(
        racers.map(
          (child) =>
            new Promise<string>((resolve) => {
              let out = '';
              child.stdout.setEncoding('utf8');
              child.stdout.on('data', (chunk: string) => {
                out += chunk;
                if (out.includes('\n')) resolve(out.trim());
              });
              child.on('exit', () => resolve(out.trim()));
            }),
        ),
      );
      for (const child of racers) child.stdin.end();
      await Promise.all(racers.map((child) => new Promise((resolve) => child.on('exit', resolve))));
      return said;
    };
    const rounds: string[][] = [];
    for (let i = 0; i < 100; i += 4) {
      rounds.push(...(await Promise.all([i, i + 1, i + 2, i + 3].map(round))));
    }
    for (const said of rounds) {
      expect(
        said.filter((s) => s.startsWith('won ')),
        said.join(' | '),
      ).toHaveLength(1);
      expect(
        said.filter((s) => s.startsWith('refused: ')),
        said.join(' | '),
      ).toHaveLength(1);
    }
    // Each winner's claim is the one on the remote.
    rounds.forEach((said, i) => {
      const sha = said.find((s) => s.startsWith('won '))?.slice(4);
      expect(w.remoteRefs().get(`refs/ralphtool/race-${i}/claim`)).toBe(sha);
    });
  }, 600_000);
});
