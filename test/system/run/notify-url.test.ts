import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { postNotification } from '../../../src/run/unattended/notify-post.js';
import { RunFixture, single, stories, succeed } from '../../run/helpers.js';

/** A request the local server got. */
interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** How the server answers each request in turn (the last one repeats): a status, or never. */
type Answer = number | 'never';

/** A real HTTP server on 127.0.0.1 that records what it is sent and answers as scripted. */
class HookServer {
  readonly seen: Seen[] = [];
  private readonly server: Server;
  private readonly hanging: ServerResponse[] = [];

  private constructor(private readonly answers: readonly Answer[]) {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        this.seen.push({
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
        const answer = this.answers[Math.min(this.seen.length, this.answers.length) - 1] ?? 200;
        if (answer === 'never') {
          this.hanging.push(res);
          return;
        }
        res.writeHead(answer, { 'content-type': 'text/plain' });
        res.end(answer < 300 ? 'ok' : 'no');
      });
    });
  }

  static async start(answers: readonly Answer[]): Promise<HookServer> {
    const hooks = new HookServer(answers);
    await new Promise<void>((resolve) => hooks.server.listen(0, '127.0.0.1', resolve));
    servers.push(hooks);
    return hooks;
  }

  get host(): string {
    return `127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  url(pathAndQuery: string): string {
    return `http://${this.host}${pathAndQuery}`;
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const servers: HookServer[] = [];
let fixture: RunFixture | undefined;
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  fixture?.remove();
  fixture = undefined;
});

const BODY = JSON.stringify({ type: 'run.finished', ts: '2026-11-23T10:00:00.000Z', text: 'hi' });
const SECRET = 'T0KEN-do-not-print';

describe('postNotification: a POST with one retry', () => {
  it('POSTs the JSON with content-type application/json, once when it is taken', async () => {
    const hooks = await HookServer.start([200]);
    expect(
      await postNotification({
        url: hooks.url(`/hook/${SECRET}?x=1`),
        body: BODY,
        timeoutMs: 10_000,
      }),
    ).toBeNull();
    expect(hooks.seen).toHaveLength(1);
    const [request] = hooks.seen;
    expect(request).toMatchObject({ method: 'POST', url: `/hook/${SECRET}?x=1`, body: BODY });
    expect(request?.headers['content-type']).toBe('application/json');
  });

  it('tries once more after a 5xx, and is delivered then', async () => {
    const hooks = await HookServer.start([500, 200]);
    expect(
      await postNotification({ url: hooks.url('/h'), body: BODY, timeoutMs: 10_000 }),
    ).toBeNull();
    expect(hooks.seen.map((r) => r.body)).toEqual([BODY, BODY]);
  });

  it('gives up after the one retry, naming the host only', async () => {
    const hooks = await HookServer.start([503]);
    const failure = await postNotification({
      url: hooks.url(`/hook/${SECRET}`),
      body: BODY,
      timeoutMs: 10_000,
      retryDelayMs: 0,
    });
    expect(failure).toBe(`${hooks.host}: HTTP 503, then after a retry HTTP 503`);
    expect(hooks.seen).toHaveLength(2);
  });

  it('does not retry a 4xx: the request itself is wrong', async () => {
    for (const status of [400, 401, 404]) {
      const hooks = await HookServer.start([status, 200]);
      const failure = await postNotification({
        url: hooks.url(`/hook/${SECRET}`),
        body: BODY,
        timeoutMs: 10_000,
      });
      expect(failure).toBe(`${hooks.host}: HTTP ${status}`);
      expect(hooks.seen).toHaveLength(1);
    }
  });

  it('a server that never answers: each try ends at the time limit, then it is given up', async () => {
    const hooks = await HookServer.start(['never']);
    const failure = await postNotification({
      url: hooks.url(`/hook/${SECRET}`),
      body: BODY,
      timeoutMs: 500,
      retryDelayMs: 0,
    });
    expect(failure).toBe(
      `${hooks.host}: no answer within 0.5s, then after a retry no answer within 0.5s`,
    );
    expect(hooks.seen).toHaveLength(2);
  });

  it('nobody listening: a network error, retried once', async () => {
    const hooks = await HookServer.start([200]);
    const url = hooks.url(`/hook/${SECRET}`);
    const host = hooks.host;
    await hooks.close();
    servers.splice(servers.indexOf(hooks), 1);
    const failure = await postNotification({ url, body: BODY, timeoutMs: 5_000, retryDelayMs: 0 });
    expect(failure).toBe(
      `${host}: could not connect (ECONNREFUSED), then after a retry could not connect (ECONNREFUSED)`,
    );
  });

  it('user:password@ in the URL becomes basic authentication, and is never shown', async () => {
    const hooks = await HookServer.start([403]);
    const url = `http://bot:${SECRET}@${hooks.host}/topic`;
    const failure = await postNotification({ url, body: BODY, timeoutMs: 10_000 });
    expect(failure).toBe(`${hooks.host}: HTTP 403`);
    expect(hooks.seen[0]?.headers.authorization).toBe(
      `Basic ${Buffer.from(`bot:${SECRET}`).toString('base64')}`,
    );
    expect(hooks.seen[0]?.url).toBe('/topic');
  });
});

describe('ralphtool run --notify-url', () => {
  it('POSTs run.finished to every URL; a 4xx and a server that never answers are warnings naming the host only; the run ends as it would have', async () => {
    const good = await HookServer.start([200]);
    const refusing = await HookServer.start([400]);
    const silent = await HookServer.start(['never']);
    fixture = new RunFixture('add-greeter', stories(1)).scenario({
      '1-1': succeed('src/a.txt', 'a\n'),
    });
    const result = await fixture.run([
      '--json',
      '--notify-timeout',
      '1s',
      '--notify-url',
      good.url(`/services/${SECRET}`),
      '--notify-url',
      refusing.url(`/services/${SECRET}`),
      '--notify-url',
      silent.url(`/services/${SECRET}`),
    ]);
    expect(result.exitCode).toBe(0);
    const events = result.events();
    const finished = single(events, 'run.finished');
    expect(events[events.length - 1]).toBe(finished);

    expect(good.seen).toHaveLength(1);
    const [request] = good.seen;
    expect(request?.method).toBe('POST');
    expect(request?.headers['content-type']).toBe('application/json');
    const { ts, text, ...told } = JSON.parse(request?.body ?? '{}') as Record<string, unknown>;
    const { ts: _ts, ...written } = finished;
    expect(told).toEqual(written);
    expect(Number.isNaN(Date.parse(String(ts)))).toBe(false);
    expect(text).toMatch(/^add-greeter is complete \(1\/1 stories done/);

    expect(refusing.seen).toHaveLength(1);
    expect(silent.seen).toHaveLength(2);
    const warnings = events
      .filter((e) => e.type === 'error')
      .map((e) => [e.fatal, e.message])
      .sort();
    expect(warnings).toEqual(
      [
        [
          false,
          `notification (run.finished) not delivered: --notify-url ${refusing.host}: HTTP 400`,
        ],
        [
          false,
          `notification (run.finished) not delivered: --notify-url ${silent.host}: no answer within 1s, then after a retry no answer within 1s`,
        ],
      ].sort(),
    );
    expect(result.stdout + result.stderr).not.toContain(SECRET);
  });

  it('a malformed --notify-url is refused before anything runs, without echoing it (exit 2)', async () => {
    fixture = new RunFixture('add-greeter', stories(1)).scenario({
      '1-1': succeed('src/a.txt', 'a\n'),
    });
    for (const url of [`hooks.example/${SECRET}`, `ftp://bot:${SECRET}@example.org/x`]) {
      const result = await fixture.run(['--notify-url', url]);
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toMatch(/^ralphtool: --notify-url: /);
      expect(result.stderr).not.toContain(SECRET);
      expect(fixture.branchExists('ralph/add-greeter')).toBe(false);
    }
  });
});
