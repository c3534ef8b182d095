import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { updateAccountEntry } from '../../../src/checkpoint/account-file.js';
import { EMPTY_ACCOUNT, withLimit } from '../../../src/core/account-window.js';

// The usage governor's account file (docs/contract.md, "One account, many runs") written by
// several processes of the user at once: each update is a read-modify-write under the file's
// lock (checkpoint/file-lock.ts), so no process loses what another wrote — a limit above all.
// The writers are real processes (test/support/account-writer.mjs) started at one moment.

const WRITER = path.resolve('test/support/account-writer.mjs');

let folder: string | null = null;
afterEach(() => {
  if (folder !== null) rmSync(folder, { recursive: true, force: true });
  folder = null;
});

function accountFile(): string {
  folder = mkdtempSync(path.join(tmpdir(), 'ralph-writers-'));
  return path.join(folder, 'accounts', 'claude-000000000000.json');
}

/** Its first line of stdout equal to `line`. */
async function said(child: ChildProcess, line: string): Promise<void> {
  if (child.stdout === null) throw new Error('no stdout');
  const lines = createInterface({ input: child.stdout });
  for await (const got of lines) if (got === line) return;
  throw new Error(`the writer ended without saying ${line}`);
}

/** Writers started together: each `[role, index]`, `count` updates each. */
async function writeAtOnce(file: string, roles: ['limit' | 'usage', number][], count: number) {
  const children = roles.map(([role, index]) =>
    spawn(process.execPath, [WRITER, file, role, String(index), String(count)], {
      stdio: ['pipe', 'pipe', 'inherit'],
    }),
  );
  const done = children.map((child) => once(child, 'exit'));
  await Promise.all(children.map((child) => said(child, 'ready')));
  for (const child of children) child.stdin?.write('go\n');
  const codes = (await Promise.all(done)).map((args) => args[0] as number | null);
  expect(codes).toEqual(children.map(() => 0));
}

describe('the account file written by several processes at once', () => {
  it('limit writers and usage writers together: the latest limit and a utilisation are both kept, whatever the interleaving', async () => {
    const file = accountFile();
    const count = 40;
    // Writer 3 records the latest limit; usage writers rewrite the entry between the limits.
    await writeAtOnce(
      file,
      [
        ['limit', 1],
        ['usage', 2],
        ['limit', 3],
        ['usage', 4],
        ['limit', 2],
        ['usage', 5],
      ],
      count,
    );
    const entry = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    expect(entry).toMatchObject({
      agent: 'claude',
      limit: {
        until: new Date(Date.parse('2100-01-01T00:00:00Z') + 3 * 3_600_000 + count).toISOString(),
        by: { change: 'writer-3' },
        message: `limit 3.${count}`,
      },
      usage: { window: 'five_hour' },
    });
    // No lock file and no temporary file is left behind.
    expect(readdirSync(path.dirname(file))).toEqual([path.basename(file)]);
  }, 120_000);

  it('a lock its holder left behind when it died (or that names no holder) is taken over', async () => {
    const file = accountFile();
    const dead = spawn(process.execPath, ['-e', '']);
    const [code] = (await once(dead, 'exit')) as [number | null];
    expect(code).toBe(0);
    const hit = {
      until: '2100-01-01T00:00:00.000Z',
      by: { change: 'c', pid: 1, host: 'h' },
      kind: 'usage' as const,
      source: 'test',
      message: 'limit',
    };
    for (const text of [
      `${JSON.stringify({ pid: dead.pid, host: hostname(), startTime: null })}\n`,
      'not a holder',
    ]) {
      await updateAccountEntry(file, (entry) => entry ?? EMPTY_ACCOUNT('claude'));
      writeFileSync(`${file}.lock`, text);
      const next = await updateAccountEntry(file, (entry) =>
        withLimit(entry ?? EMPTY_ACCOUNT('claude'), hit),
      );
      expect(next.limit).toMatchObject({ until: hit.until });
      expect(readdirSync(path.dirname(file))).toEqual([path.basename(file)]);
    }
  });
});
