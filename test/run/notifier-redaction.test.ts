import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/core/events.js';
import { createNotifier } from '../../src/run/unattended/notify.js';
import { quote } from './helpers.js';

// docs/contract.md, "Notifications": what the agent wrote may repeat a secret it read; the
// message, the JSON on a program's stdin, its RALPHTOOL_MESSAGE and a webhook's body never carry
// one — each kind the one redactor knows (core/redact.ts), through each sink.

const RECORDER = path.resolve('test/fixtures/notify/record.mjs');
const DOTENV_QUOTED = 'wJalrXUtnFEMI-K7MDENG-quoted';
const DOTENV_PLAIN = 'plain-dotenv-value-42';
const NAMED_TOKEN = 'tok-1234567890abcdef';
const DB_PASSWORD = 's3cret-pw';
const GITHUB = `ghp_${'a1B2'.repeat(9)}`;
const ALL = [DOTENV_QUOTED, DOTENV_PLAIN, NAMED_TOKEN, DB_PASSWORD, GITHUB];

let dir = '';
let server: Server | null = null;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'ralphtool-redaction-'));
  // The top of a work tree: the notifier reads the dotenv files up to here.
  writeFileSync(path.join(dir, '.git'), 'gitdir: elsewhere\n');
  writeFileSync(
    path.join(dir, '.env'),
    `export AWS_SECRET="${DOTENV_QUOTED}" # from the console\nSOMETHING=${DOTENV_PLAIN} # a note\n`,
  );
});
afterEach(() => {
  server?.close();
  server = null;
  rmSync(dir, { recursive: true, force: true });
});

/** A webhook on 127.0.0.1 that keeps the bodies it is sent. */
async function webhook(): Promise<{ url: string; bodies: string[] }> {
  const bodies: string[] = [];
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      bodies.push(body);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, bodies };
}

describe('notifications never carry a secret', () => {
  it('a question quoting .env values, a token variable, a URL password and a GitHub token', async () => {
    const hook = await webhook();
    const out = path.join(dir, 'told.jsonl');
    const notifier = createNotifier({
      change: 'add-db',
      programs: [[process.execPath, RECORDER, out].map(quote).join(' ')],
      urls: [hook.url],
      timeoutMs: 30_000,
      cwd: dir,
      env: {
        ...process.env,
        DEPLOY_TOKEN: NAMED_TOKEN,
        DATABASE_URL: `postgres://app:${DB_PASSWORD}@db.internal/app`,
      },
      next: () => undefined,
      holdFinished: false,
    });
    const question = `Which of these: ${DOTENV_QUOTED}, ${DOTENV_PLAIN}, ${NAMED_TOKEN}, postgres://app:${DB_PASSWORD}@db.internal/app or ${GITHUB}?`;
    const blocked: RunEvent = { type: 'story.blocked', storyId: '2', attempt: 1, question };
    notifier.emit(blocked);
    await notifier.settled();

    const call = JSON.parse(readFileSync(out, 'utf8').trim()) as {
      stdin: string;
      env: { RALPHTOOL_MESSAGE: string };
    };
    expect(hook.bodies).toHaveLength(1);
    for (const text of [call.stdin, call.env.RALPHTOOL_MESSAGE, hook.bodies[0] ?? '']) {
      for (const secret of ALL) expect(text).not.toContain(secret);
      expect(text).toContain('[redacted $AWS_SECRET]');
      expect(text).toContain('[redacted $DEPLOY_TOKEN]');
      expect(text).toContain('[redacted: a GitHub token]');
      expect(text).toContain('postgres://app:[redacted');
    }
    // Still the event's JSON, with the question in it.
    expect(JSON.parse(call.stdin)).toMatchObject({ type: 'story.blocked', storyId: '2' });
  });
});
