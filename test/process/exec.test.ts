import { expectGone } from '../support/processes.js';
import { describe, expect, it } from 'vitest';
import { execProgram } from '../../src/process/exec.js';
import { ProcessError } from '../../src/process/process-error.js';
import { groupAlive } from '../../src/process/process-group.js';

const node = process.execPath;

describe('execProgram', () => {
  it('returns stdout and passes input on stdin without a shell', async () => {
    const result = await execProgram(node, ['-e', 'process.stdin.pipe(process.stdout)'], {
      baseEnv: process.env,
      cwd: process.cwd(),
      input: 'hello; $(rm -rf /)',
    });
    expect(result.stdout).toBe('hello; $(rm -rf /)');
    expect(result.exitCode).toBe(0);
  });

  it('throws a ProcessError naming the command, exit code and stderr tail', async () => {
    const failing = execProgram(node, ['-e', 'console.error("boom line"); process.exit(3)'], {
      baseEnv: process.env,
      cwd: process.cwd(),
    });
    await expect(failing).rejects.toBeInstanceOf(ProcessError);
    await expect(failing).rejects.toMatchObject({ exitCode: 3 });
    await expect(failing).rejects.toThrow(/exit code 3: boom line/);
  });

  it('reports a missing program as not found', async () => {
    await expect(
      execProgram('ralphtool-no-such-program', [], { baseEnv: process.env, cwd: process.cwd() }),
    ).rejects.toMatchObject({
      notFound: true,
      message: expect.stringMatching(/not found on PATH/) as unknown,
    });
  });

  it('kills the whole process group on timeout, grandchildren included', async () => {
    // The leader prints its grandchild's pid, then waits for it. On a loaded machine a start can
    // take longer than the timeout: then nothing was printed, and the timeout is tried longer.
    for (const timeoutMs of [500, 2_000, 8_000]) {
      const failure = await execProgram('bash', ['-c', 'sleep 300 & echo $!; wait'], {
        baseEnv: process.env,
        cwd: process.cwd(),
        timeoutMs,
        graceMs: 200,
        reject: false,
      });
      expect(failure.timedOut).toBe(true);
      const grandchild = Number(failure.stdout.trim());
      if (grandchild > 0) {
        await expectGone(grandchild);
        return;
      }
    }
    expect.fail('the leader never printed its grandchild, even with an 8 s timeout');
  });

  it('stops when the abort signal fires', async () => {
    const controller = new AbortController();
    const running = execProgram(node, ['-e', 'setInterval(() => {}, 1000)'], {
      baseEnv: process.env,
      cwd: process.cwd(),
      signal: controller.signal,
      graceMs: 100,
      reject: false,
    });
    setTimeout(() => controller.abort(), 100);
    const result = await running;
    expect(result.aborted).toBe(true);
    expect(result.signal).toBe('SIGTERM');
  });

  it('groupAlive is false for a group that never existed', () => {
    expect(groupAlive(2 ** 22 - 7)).toBe(false);
  });
});
