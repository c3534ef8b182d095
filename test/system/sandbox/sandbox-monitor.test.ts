import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxPolicy } from '../../../src/core/sandbox-policy.js';
import { execProgram } from '../../../src/process/exec.js';
import { openSandbox, type SandboxSession } from '../../../src/process/sandbox.js';
import { sandboxToolsAvailable } from '../../support/sandbox-tools.js';

// docs/sandbox.md, "What the sandbox refused": an attempt's refusals are all reported, up to the
// agent's very last act before it exits, though the attempt no longer waits a fixed time for the
// monitor after each agent: it waits for the command's end mark, which the monitor passes on
// after all the command's lines. Real bubblewrap, real runtime, in-process (no CLI).

let session: SandboxSession;
let tree: string;

beforeAll(async () => {
  if (!sandboxToolsAvailable()) return;
  tree = mkdtempSync(path.join(tmpdir(), 'ralphtool-monitor-'));
  session = await openSandbox([], process.env);
});

afterAll(async () => {
  if (!sandboxToolsAvailable()) return;
  await session.release();
  rmSync(tree, { recursive: true, force: true });
});

function wrap(script: string) {
  return session.wrap(['bash', '-c', script], tree, (tmpDir) =>
    sandboxPolicy({
      agent: 'command',
      place: {
        home: process.env.HOME ?? tmpdir(),
        workTree: tree,
        gitDir: `${tree}/.git`,
        gitCommonDir: `${tree}/.git`,
        tmpDir,
      },
      env: process.env,
      allowHosts: [],
      extraDenyRead: [],
    }),
  );
}

/** Runs a script in the sandbox to its end: its exit code, what it was refused, where it started. */
async function runWrapped(script: string) {
  const command = await wrap(script);
  const result = await execProgram(command.program, command.args, {
    cwd: command.cwd,
    baseEnv: process.env,
    reject: false,
  });
  return { exitCode: result.exitCode, blocks: await command.done(), cwd: command.cwd };
}

describe.skipIf(!sandboxToolsAvailable())(
  'what the sandbox refused an agent, read at its end',
  () => {
    it.each([1, 40, 400])(
      '%i refused writes made just before the agent exits: counted, and the last one reported unless a flood was dropped',
      async (n) => {
        const { exitCode, blocks } = await runWrapped(
          `for i in $(seq ${String(n)}); do : > /etc/ralphtool-x; done 2>/dev/null; echo ok > kept.txt; { : > /etc/ralphtool-last; } 2>/dev/null; exit 0`,
        );
        expect(exitCode).toBe(0);
        // Only the refusals: not the write the policy allows, not the command's end mark. The
        // runtime's reporter inside the sandbox drops what its socket cannot take when ralphtool
        // reads slowly (a loaded machine: 278 of 400 arrived once, and once the last line after
        // such a flood did not), so a flood's count is at most what was refused and the line
        // after it may be lost with it; what fits in the socket (40 lines) all arrives, the last
        // one included: it comes before the end mark, which the attempt waits for.
        const [flood, last] = blocks;
        expect(flood).toMatchObject({ kind: 'write', target: '/etc/ralphtool-x' });
        expect(flood?.count).toBeLessThanOrEqual(n);
        if (n <= 40) {
          expect(flood?.count).toBe(n);
          expect(blocks).toHaveLength(2);
        } else {
          expect(flood?.count).toBeGreaterThan(0);
          expect(blocks.length).toBeLessThanOrEqual(2);
        }
        if (blocks.length === 2) {
          expect(last).toEqual({ kind: 'write', target: '/etc/ralphtool-last', count: 1 });
        }
      },
    );

    it('keeps the agent’s exit status, and reports nothing for an agent refused nothing', async () => {
      const { exitCode, blocks } = await runWrapped('echo fine > kept.txt; exit 7');
      expect(exitCode).toBe(7);
      expect(blocks).toEqual([]);
    });

    it('has no command write where it starts (the runtime’s scan of it for files to protect is skipped)', async () => {
      const { exitCode, blocks, cwd } = await runWrapped(
        '{ : > "$OLDPWD/.bashrc"; } 2>/dev/null; mkdir "$OLDPWD/x" 2>/dev/null; exit 0',
      );
      expect(exitCode).toBe(0);
      expect(blocks.map((b) => b.target)).toEqual([path.join(cwd, '.bashrc'), path.join(cwd, 'x')]);
      expect(readdirSync(cwd)).toEqual([]);
    });

    it('still reports what an agent stopped before its end was refused', async () => {
      const command = await wrap(
        '{ : > /etc/ralphtool-stopped; } 2>/dev/null; echo ready; sleep 60',
      );
      const child = spawn(command.program, command.args, {
        cwd: command.cwd,
        detached: true,
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      const ended = new Promise((resolve) => child.on('close', resolve));
      await new Promise<void>((resolve) => {
        child.stdout.on('data', (data: Buffer) => {
          if (data.toString().includes('ready')) resolve();
        });
      });
      process.kill(-(child.pid ?? 0), 'SIGKILL');
      await ended;
      expect(await command.done()).toEqual([
        { kind: 'write', target: '/etc/ralphtool-stopped', count: 1 },
      ]);
    });
  },
);
