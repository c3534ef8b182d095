import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  bootId,
  dyingFrom,
  isDying,
  isZombie,
  listPids,
  processCwd,
  processesInGroup,
  processIdentity,
  processName,
  processStartTime,
} from '../../src/process/proc.js';
import { eventually, killGroup } from '../support/processes.js';

const node = process.execPath;
const started: ChildProcess[] = [];
const dirs: string[] = [];

afterEach(() => {
  for (const child of started.splice(0)) killGroup(child.pid);
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A process in a group of its own that prints `script`'s first line and keeps running. */
async function startGroup(script: string, cwd = process.cwd()): Promise<[ChildProcess, string]> {
  const child = spawn(node, ['-e', script], {
    cwd,
    detached: true,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  started.push(child);
  const line = await new Promise<string>((resolve) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(out.split('\n')[0] ?? '');
    });
  });
  return [child, line];
}

describe('/proc readers', () => {
  it('list this process and tell its start time and identity', () => {
    expect(listPids()).toContain(process.pid);
    const start = processStartTime(process.pid);
    expect(start).toMatch(/^\d+$/);
    expect(processStartTime(process.pid)).toBe(start);
    expect(bootId()).toMatch(/^[0-9a-f-]{36}$/);
    expect(processIdentity(process.pid)).toBe(`${bootId() ?? ''}:${start ?? ''}`);
  });

  it('tell the name of a process and a younger one by its later start time', async () => {
    const [child] = await startGroup('console.log("up"); setInterval(() => {}, 1000)');
    const pid = child.pid ?? 0;
    // The kernel keeps the first 15 bytes of the name of the file that was executed.
    expect(processName(pid)).toBe(path.basename(node).slice(0, 15));
    expect(Number(processStartTime(pid))).toBeGreaterThanOrEqual(
      Number(processStartTime(process.pid)),
    );
    expect(processIdentity(pid)).not.toBe(processIdentity(process.pid));
  });

  it('find every member of a process group', async () => {
    const [leader, grandchild] = await startGroup(`
      const { spawn } = require('node:child_process');
      const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
      console.log(child.pid);
      setInterval(() => {}, 1000);
    `);
    const pgid = leader.pid ?? 0;
    expect(processesInGroup(pgid).sort()).toEqual([pgid, Number(grandchild)].sort());
    expect(processesInGroup(process.pid)).not.toContain(pgid);
  });

  it('tell the working directory of a process', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ralphtool-proc-'));
    dirs.push(dir);
    const [child] = await startGroup('console.log("up"); setInterval(() => {}, 1000)', dir);
    expect(processCwd(child.pid ?? 0)).toBe(realpathSync(dir));
  });

  it('tell a zombie (exited, not reaped) from a live process', async () => {
    // The parent blocks its event loop, so it does not reap the child that exits meanwhile.
    const [parent, zombie] = await startGroup(`
      const { spawn } = require('node:child_process');
      const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
      child.on('spawn', () => {
        console.log(child.pid);
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60_000);
      });
    `);
    expect(isZombie(parent.pid ?? 0)).toBe(false);
    expect(await eventually(() => isZombie(Number(zombie)))).toBe(true);
    // Past its exit: the kernel's exiting flag stays set on a zombie; the live parent is not dying.
    expect(isDying(Number(zombie))).toBe(true);
    expect(isDying(parent.pid ?? 0)).toBe(false);
  });

  it('tell a process on its way out by its exiting flag or a SIGKILL it has not acted on', () => {
    // Lines as the kernel writes them, seen for a sandbox's processes right after its outer
    // bubblewrap exited on a loaded machine (flags field 9, signal masks in hex).
    const stat = (comm: string, flags: string): string =>
      `19401 (${comm}) R 1 19401 19401 0 -1 ${flags} 120 0 0 0 0 0 0 0 20 0 1 0 5093 0 0`;
    const status = (pnd: string, shd: string): string =>
      `Name:\tbwrap\nState:\tR (running)\nSigQ:\t1/7823\nSigPnd:\t${pnd}\nShdPnd:\t${shd}\nSigBlk:\t0000000000000000\n`;
    const none = '0000000000000000';
    expect(dyingFrom(stat('bwrap', '4194624'), status('0000000000000100', none))).toBe(true);
    expect(dyingFrom(stat('bwrap', '4194624'), status(none, '0000000000004100'))).toBe(true);
    expect(dyingFrom(stat('a) b (c', '4194308'), status(none, none))).toBe(true); // PF_EXITING
    // Other signals pending (SIGTERM, SIGCHLD), no exiting flag: alive.
    expect(
      dyingFrom(stat('socat', '4194624'), status('0000000000004000', '0000000000010000')),
    ).toBe(false);
    expect(dyingFrom(stat('a) b (c', '4194624'), status(none, none))).toBe(false);
    expect(isDying(process.pid)).toBe(false);
  });

  it('answer nothing for a process that does not exist', () => {
    const none = 2 ** 22 + 1; // above the largest pid Linux hands out
    expect(processStartTime(none)).toBeNull();
    expect(processIdentity(none)).toBeNull();
    expect(processName(none)).toBeNull();
    expect(processCwd(none)).toBeNull();
    expect(isZombie(none)).toBe(false);
    expect(isDying(none)).toBe(false);
    expect(processesInGroup(none)).toEqual([]);
  });
});
