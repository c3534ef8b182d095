import { spawn } from 'node:child_process';
import {
  readFileSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { GitContext } from '../../src/git/git.js';
import { RefWriter } from '../../src/git/ref-writer.js';
import { lockHolder } from '../../src/git/lock-holder.js';
import { eventually } from '../support/processes.js';
import { cleanEnv, makeRepo, TIMEOUT_MS, type TempRepo } from './helpers.js';

// The run's writer of its own refs: one `git update-ref --stdin` for many updates, and every
// way it can go wrong ends in the update made by a git process of its own, or in git's error.

const repos: TempRepo[] = [];
const writers: RefWriter[] = [];
afterEach(() => {
  for (const writer of writers.splice(0)) writer.close();
  for (const repo of repos.splice(0)) repo.remove();
});

function setUp(): { repo: TempRepo; shas: string[]; writer: RefWriter; ctx: GitContext } {
  const repo = makeRepo();
  repos.push(repo);
  const shas = [repo.git('rev-parse', 'HEAD')];
  for (let i = 1; i <= 3; i++) {
    repo.git('commit', '-q', '--allow-empty', '-m', `c${i}`);
    shas.push(repo.git('rev-parse', 'HEAD'));
  }
  const ctx: GitContext = { cwd: repo.dir, timeoutMs: TIMEOUT_MS, baseEnv: cleanEnv() };
  const writer = new RefWriter(ctx);
  writers.push(writer);
  return { repo, shas, writer, ctx };
}

/**
 * The `git update-ref --stdin` processes this test process started that are alive, working in
 * `dir` when given (other tests of this worker may have writers of their own open).
 */
function openWriters(dir?: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] === 'Z' || Number(fields[1]) !== process.pid) continue;
      const line = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (!line.includes('update-ref') || !line.includes('--stdin')) continue;
      if (dir === undefined || readlinkSync(`/proc/${entry}/cwd`) === dir) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

describe('RefWriter', () => {
  it('points refs through one git process for many updates, and ends it on close', async () => {
    const { repo, shas, writer } = setUp();
    for (const [i, sha] of shas.entries()) {
      await writer.update('refs/ralphtool/demo/checkpoint', sha, 'pin');
      await writer.update(`refs/ralphtool/demo/attempts/1-${i + 1}`, sha, 'save');
      expect(repo.git('rev-parse', 'refs/ralphtool/demo/checkpoint')).toBe(sha);
      expect(repo.git('rev-parse', `refs/ralphtool/demo/attempts/1-${i + 1}`)).toBe(sha);
    }
    const dir = realpathSync(repo.dir);
    expect(openWriters(dir)).toHaveLength(1);
    writer.close();
    expect(await eventually(() => openWriters(dir).length === 0)).toBe(true);
    // A later update starts a new one.
    await writer.update('refs/ralphtool/demo/checkpoint', shas[0] ?? '', 'pin');
    expect(repo.git('rev-parse', 'refs/ralphtool/demo/checkpoint')).toBe(shas[0]);
  });

  it('keeps the order of updates made without waiting for each other', async () => {
    const { repo, shas, writer } = setUp();
    await Promise.all(
      shas.map((sha) => writer.update('refs/ralphtool/demo/checkpoint', sha, 'pin')),
    );
    expect(repo.git('rev-parse', 'refs/ralphtool/demo/checkpoint')).toBe(shas.at(-1));
  });

  it('waits for a lock another process holds, as every git verb does, then updates', async () => {
    const { repo, shas, writer } = setUp();
    await writer.update('refs/ralphtool/demo/checkpoint', shas[0] ?? '', 'pin');
    const lock = join(repo.dir, '.git/refs/ralphtool/demo/checkpoint.lock');
    writeFileSync(lock, '');
    setTimeout(() => rmSync(lock, { force: true }), 300);
    await writer.update('refs/ralphtool/demo/checkpoint', shas[1] ?? '', 'pin');
    expect(repo.git('rev-parse', 'refs/ralphtool/demo/checkpoint')).toBe(shas[1]);
    // The refused process ended; the next update starts a new one and goes through it.
    await writer.update('refs/ralphtool/demo/checkpoint', shas[2] ?? '', 'pin');
    expect(repo.git('rev-parse', 'refs/ralphtool/demo/checkpoint')).toBe(shas[2]);
    expect(await eventually(() => openWriters(realpathSync(repo.dir)).length === 1)).toBe(true);
  });

  it("says git's refusal with the caller's context, and works again after it", async () => {
    const { repo, shas, writer } = setUp();
    await expect(
      writer.update('refs/ralphtool/bad..name', shas[0] ?? '', 'could not keep the pin'),
    ).rejects.toThrow(/could not keep the pin.*refs\/ralphtool\/bad\.\.name/s);
    await writer.update('refs/ralphtool/demo/checkpoint', shas[1] ?? '', 'pin');
    expect(repo.git('rev-parse', 'refs/ralphtool/demo/checkpoint')).toBe(shas[1]);
  });

  it('updates when its git process was killed between two updates', async () => {
    const { repo, shas, writer } = setUp();
    await writer.update('refs/ralphtool/demo/checkpoint', shas[0] ?? '', 'pin');
    const dir = realpathSync(repo.dir);
    const [pid] = openWriters(dir);
    expect(pid).toBeDefined();
    process.kill(pid ?? 0, 'SIGKILL');
    expect(await eventually(() => openWriters(dir).length === 0)).toBe(true);
    await writer.update('refs/ralphtool/demo/checkpoint', shas[1] ?? '', 'pin');
    expect(repo.git('rev-parse', 'refs/ralphtool/demo/checkpoint')).toBe(shas[1]);
  });

  it('keeps at most 8 processes open in a process, however many writers were never closed', async () => {
    const { repo, shas, ctx } = setUp();
    const many = Array.from({ length: 11 }, () => new RefWriter(ctx));
    writers.push(...many);
    for (const [i, writer] of many.entries()) {
      await writer.update(`refs/ralphtool/w${i}/checkpoint`, shas[0] ?? '', 'pin');
    }
    expect(await eventually(() => openWriters().length <= 8)).toBe(true);
    // The writers whose process was ended start a new one when used again.
    await many[0]?.update('refs/ralphtool/w0/checkpoint', shas[1] ?? '', 'pin');
    expect(repo.git('rev-parse', 'refs/ralphtool/w0/checkpoint')).toBe(shas[1]);
  });

  it('is no holder of a lock another process left: its idle git waits in the repository, another git there counts', async () => {
    const { repo, shas, writer } = setUp();
    await writer.update('refs/ralphtool/demo/checkpoint', shas[0] ?? '', 'pin');
    const root = realpathSync(repo.dir);
    expect(openWriters(root)).toHaveLength(1);
    const lock = join(repo.dir, '.git/index.lock');
    writeFileSync(lock, '');
    expect(lockHolder(lock, root)).toBeNull();
    // Another program's git working in the repository still counts (it may be waiting for an
    // editor while it owns the lock).
    const other = spawn('git', ['hash-object', '--stdin'], { cwd: repo.dir, stdio: 'pipe' });
    try {
      expect(await eventually(() => lockHolder(lock, root)?.pid === other.pid)).toBe(true);
    } finally {
      other.stdin.end();
    }
  });

  it('never keeps a process from exiting while it waits for no answer', async () => {
    const { repo, shas } = setUp();
    // A small node program that updates a ref through a writer and never closes it (the built
    // writer: `npm test` builds first).
    const built = new URL('../../dist/git/ref-writer.js', import.meta.url).href;
    const program = [
      `const { RefWriter } = await import(${JSON.stringify(built)});`,
      `const w = new RefWriter({ cwd: ${JSON.stringify(repo.dir)}, timeoutMs: 30000, baseEnv: process.env });`,
      `await w.update('refs/ralphtool/demo/checkpoint', ${JSON.stringify(shas[2])}, 'pin');`,
      `console.log('updated');`,
    ].join('\n');
    const child = spawn(process.execPath, ['--input-type=module', '-e', program], {
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        resolve(null);
      }, 20_000);
      child.on('exit', (exitCode) => {
        clearTimeout(timer);
        resolve(exitCode);
      });
    });
    expect(out).toContain('updated');
    expect(code).toBe(0);
    expect(repo.git('rev-parse', 'refs/ralphtool/demo/checkpoint')).toBe(shas[2]);
  });
});
