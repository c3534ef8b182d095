import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execProgram } from '../../../src/process/exec.js';
import { startChild } from '../../../src/process/lifecycle.js';
import { ProcessError } from '../../../src/process/process-error.js';
import { streamProcess } from '../../../src/process/stream.js';
import { eventually, expectGone, groupMembers, killGroup } from '../../support/processes.js';

const node = process.execPath;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'ralphtool-lifecycle-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** How a run ended, the fields execProgram and streamProcess share. */
interface Ended {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  aborted: boolean;
}

interface Limits {
  signal?: AbortSignal;
  timeoutMs?: number;
  graceMs?: number;
}

/** The two ways ralphtool runs a program, both on the one lifecycle. */
const RUNNERS: Record<string, (script: string, limits: Limits) => Promise<Ended>> = {
  execProgram: async (script, limits) =>
    execProgram(node, ['-e', script], { baseEnv: process.env, cwd: dir, reject: false, ...limits }),
  streamProcess: async (script, limits) => {
    const result = await streamProcess(node, ['-e', script], {
      cwd: dir,
      env: process.env,
      onLine: () => undefined,
      wallTimeoutMs: limits.timeoutMs,
      signal: limits.signal,
      graceMs: limits.graceMs,
    });
    return { ...result, timedOut: result.timedOut !== null };
  },
};

/**
 * A script that writes `text` to the file `name` in the test folder (its cwd), whole: aside and
 * renamed, because the test waits for the file to exist and then reads it.
 */
function writeFileScript(name: string, text: string): string {
  const aside = JSON.stringify(`${name}.part`);
  return `require('node:fs').writeFileSync(${aside}, ${text}); require('node:fs').renameSync(${aside}, ${JSON.stringify(name)});`;
}

/** Spawns a grandchild in the same group and records its pid in `grandchild.pid`. */
const SPAWN_GRANDCHILD = `
  const { spawn } = require('node:child_process');
  const grandchild = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  ${writeFileScript('grandchild.pid', 'String(grandchild.pid)')}
`;

function readPid(name: string): number {
  return Number(readFileSync(path.join(dir, name), 'utf8'));
}

async function waitForFile(name: string): Promise<void> {
  expect(await eventually(() => existsSync(path.join(dir, name)))).toBe(true);
}

describe.each(Object.keys(RUNNERS))('%s on the child lifecycle', (name) => {
  const run = RUNNERS[name] ?? (() => Promise.reject(new Error(name)));

  it('kills a child that ignores SIGTERM with SIGKILL after the default grace period', async () => {
    const controller = new AbortController();
    const running = run(
      `process.on('SIGTERM', () => {});
       ${writeFileScript('ready', "''")}
       setInterval(() => {}, 1000);`,
      { signal: controller.signal },
    );
    await waitForFile('ready');
    controller.abort();
    const ended = await running;
    expect(ended).toMatchObject({ aborted: true, timedOut: false, signal: 'SIGKILL' });
  });

  it('kills a grandchild left in the group when the program is stopped', async () => {
    const controller = new AbortController();
    const running = run(
      `${SPAWN_GRANDCHILD}
       ${writeFileScript('ready', "''")}
       setInterval(() => {}, 1000);`,
      { signal: controller.signal, graceMs: 300 },
    );
    await waitForFile('ready');
    controller.abort();
    expect(await running).toMatchObject({ aborted: true, signal: 'SIGTERM' });
    await expectGone(readPid('grandchild.pid'));
  });

  it('kills a grandchild left in the group when the program exits on its own', async () => {
    // The grandchild ignores SIGTERM and does not hold the pipes: nothing waits for it.
    const stubborn = `process.on('SIGTERM', () => {}); ${writeFileScript('stubborn', "''")} setInterval(() => {}, 1000);`;
    const ended = await run(
      `const { spawn } = require('node:child_process');
       const { existsSync } = require('node:fs');
       const grandchild = spawn(process.execPath, ['-e', ${JSON.stringify(stubborn)}], { stdio: 'ignore' });
       ${writeFileScript('grandchild.pid', 'String(grandchild.pid)')}
       setInterval(() => existsSync('stubborn') && process.exit(0), 20);`,
      { graceMs: 60_000 },
    );
    expect(ended).toMatchObject({ exitCode: 0, signal: null, timedOut: false, aborted: false });
    await expectGone(readPid('grandchild.pid'));
  });

  it('ends when the program exits although a grandchild still holds its output pipes', async () => {
    const ended = await run(
      `const { spawn } = require('node:child_process');
       const grandchild = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'inherit' });
       ${writeFileScript('grandchild.pid', 'String(grandchild.pid)')}
       process.exit(0);`,
      { graceMs: 300 },
    );
    expect(ended).toMatchObject({ exitCode: 0, timedOut: false, aborted: false });
    await expectGone(readPid('grandchild.pid'));
  });

  it('stops the whole group at the wall-clock limit', async () => {
    const ended = await run(`${SPAWN_GRANDCHILD} setInterval(() => {}, 1000);`, {
      timeoutMs: 3_000,
      graceMs: 300,
    });
    expect(ended).toMatchObject({ timedOut: true, aborted: false, signal: 'SIGTERM' });
    await expectGone(readPid('grandchild.pid'));
  });

  it('starts nothing when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const ended = await run(writeFileScript('ran', "''"), { signal: controller.signal });
    expect(ended).toMatchObject({ aborted: true, exitCode: null, signal: null });
    expect(existsSync(path.join(dir, 'ran'))).toBe(false);
  });
});

describe('startChild', () => {
  it('restarts the idle limit on every output, stdout or stderr', async () => {
    const child = startChild(
      node,
      [
        '-e',
        `let n = 0;
         const tick = setInterval(() => {
           (n % 2 ? process.stdout : process.stderr).write('tick\\n');
           if (++n === 12) { clearInterval(tick); }
         }, 200);`,
      ],
      { cwd: dir, env: process.env, idleTimeoutMs: 2_000 },
    );
    child.stdout.resume();
    child.stderr.resume();
    expect(await child.ended).toMatchObject({ exitCode: 0, timedOut: null, aborted: false });
  });

  it('stops a silent program at the idle limit', async () => {
    const child = startChild(node, ['-e', 'setInterval(() => {}, 1000)'], {
      cwd: dir,
      env: process.env,
      idleTimeoutMs: 1_000,
      graceMs: 300,
    });
    expect(await child.ended).toMatchObject({ timedOut: 'idle', signal: 'SIGTERM' });
  });

  it('gives the child exactly the environment it is handed', async () => {
    const child = startChild(node, ['-e', 'console.log(JSON.stringify(process.env))'], {
      cwd: dir,
      env: { ONLY_THIS: 'yes' },
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    await child.ended;
    expect(JSON.parse(out)).toEqual({ ONLY_THIS: 'yes' });
  });

  it('reports a program that cannot be executed as a spawn error', async () => {
    const script = path.join(dir, 'not-executable');
    writeFileSync(script, '#!/bin/sh\n');
    chmodSync(script, 0o644);
    const child = startChild(script, [], { cwd: dir, env: process.env });
    const ended = await child.ended;
    expect(ended.spawnError?.code).toBe('EACCES');
    expect(ended).toMatchObject({ exitCode: null, signal: null });
  });

  it('leaves no group behind when ralphtool itself exits', async () => {
    // A ralphtool stand-in: it starts a program with a grandchild, then exits at once.
    const lifecycle = path.resolve('dist/process/lifecycle.js');
    const standIn = spawn(
      node,
      [
        '--input-type=module',
        '-e',
        `import { existsSync } from 'node:fs';
         import { startChild } from ${JSON.stringify(lifecycle)};
         const script = ${JSON.stringify(`${SPAWN_GRANDCHILD} setInterval(() => {}, 1000);`)};
         const child = startChild(process.execPath, ['-e', script], { cwd: '.', env: process.env });
         const wait = setInterval(() => {
           if (!existsSync('grandchild.pid')) return;
           clearInterval(wait);
           console.log(child.pgid);
           process.exit(0);
         }, 20);`,
      ],
      { cwd: dir, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    standIn.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => standIn.on('close', resolve));
    const pgid = Number(out.trim());
    try {
      expect(code).toBe(0);
      expect(pgid).toBeGreaterThan(0);
      expect(await eventually(() => groupMembers(pgid).length === 0)).toBe(true);
    } finally {
      killGroup(pgid);
    }
  });
});

describe('execProgram', () => {
  it('stops a program that prints more than maxBuffer and says so', async () => {
    const result = await execProgram(
      node,
      ['-e', "setInterval(() => process.stdout.write('x'.repeat(1000)), 1)"],
      { baseEnv: process.env, cwd: dir, maxBuffer: 10_000, graceMs: 300, reject: false },
    );
    expect(result).toMatchObject({ outputTooLarge: true, signal: 'SIGTERM' });
    expect(result.stdout).toBe('x'.repeat(10_000));
    await expect(
      execProgram(node, ['-e', "setInterval(() => process.stdout.write('x'), 1)"], {
        baseEnv: process.env,
        cwd: dir,
        maxBuffer: 100,
        graceMs: 300,
      }),
    ).rejects.toThrow(/printed more than ralphtool keeps/);
  });

  it('lays `env` over `baseEnv`, not over ralphtool’s own environment', async () => {
    const result = await execProgram(node, ['-e', 'console.log(JSON.stringify(process.env))'], {
      cwd: dir,
      baseEnv: { KEPT: 'base', DROPPED: 'base', REPLACED: 'base' },
      env: { DROPPED: undefined, REPLACED: 'over', ADDED: 'over' },
    });
    expect(JSON.parse(result.stdout)).toEqual({ KEPT: 'base', REPLACED: 'over', ADDED: 'over' });
  });

  it('names a program that cannot be executed, apart from one not found', async () => {
    const script = path.join(dir, 'not-executable');
    writeFileSync(script, '#!/bin/sh\n');
    chmodSync(script, 0o644);
    const failing = execProgram(script, [], { baseEnv: process.env, cwd: dir });
    await expect(failing).rejects.toBeInstanceOf(ProcessError);
    await expect(failing).rejects.toMatchObject({
      notFound: false,
      spawnError: expect.stringMatching(/EACCES/) as unknown,
      message: expect.stringMatching(/could not be started: .*EACCES/) as unknown,
    });
  });
});
