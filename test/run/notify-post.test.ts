import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { postNotification } from '../../src/run/unattended/notify-post.js';

// docs/contract.md, "Notifications": a webhook that answers with a redirect gets the same POST,
// body and all, at the new place; a delivery counts only when the POST itself was taken.

interface Seen {
  method: string;
  path: string;
  body: string;
  authorization: string | null;
}

let servers: Server[] = [];
afterEach(() => {
  for (const server of servers) server.close();
  servers = [];
});

async function serve(
  answer: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ base: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        path: req.url ?? '',
        body,
        authorization: req.headers.authorization ?? null,
      });
      answer(req, res);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { base: `http://127.0.0.1:${port}`, seen };
}

const BODY = '{"type":"run.finished","text":"done"}';

describe('a --notify-url that redirects', () => {
  for (const status of [301, 302, 303, 307, 308]) {
    it(`${status}: the POST and its body go to the new place, and that is the delivery`, async () => {
      const { base, seen } = await serve((req, res) => {
        if (req.url === '/hook') res.writeHead(status, { location: '/moved' }).end();
        else res.writeHead(204).end();
      });
      const failure = await postNotification({
        url: `${base}/hook`,
        body: BODY,
        timeoutMs: 10_000,
      });
      expect(failure).toBeNull();
      expect(seen.map((s) => [s.method, s.path, s.body])).toEqual([
        ['POST', '/hook', BODY],
        ['POST', '/moved', BODY],
      ]);
    });
  }

  it('a redirect to a place that refuses it is not counted as delivered', async () => {
    const { base } = await serve((req, res) => {
      if (req.url === '/hook') res.writeHead(302, { location: '/gone' }).end();
      else res.writeHead(404).end();
    });
    const failure = await postNotification({ url: `${base}/hook`, body: BODY, timeoutMs: 10_000 });
    expect(failure).toBe(`${new URL(base).host}: HTTP 404`);
  });

  it('endless redirects and one without a Location are failures, said in one line', async () => {
    const { base } = await serve((req, res) => {
      if (req.url === '/nowhere') res.writeHead(302).end();
      else res.writeHead(307, { location: '/hook' }).end();
    });
    const host = new URL(base).host;
    expect(await postNotification({ url: `${base}/hook`, body: BODY, timeoutMs: 10_000 })).toBe(
      `${host}: more than 5 redirects`,
    );
    expect(await postNotification({ url: `${base}/nowhere`, body: BODY, timeoutMs: 10_000 })).toBe(
      `${host}: HTTP 302 without a Location`,
    );
  });

  it('the URL’s credentials go to its own origin only, never to another one it redirects to', async () => {
    const other = await serve((_req, res) => res.writeHead(204).end());
    const { base, seen } = await serve((_req, res) =>
      res.writeHead(307, { location: `${other.base}/elsewhere` }).end(),
    );
    const withUser = base.replace('http://', 'http://bot:s3cret-token@');
    expect(
      await postNotification({ url: `${withUser}/hook`, body: BODY, timeoutMs: 10_000 }),
    ).toBeNull();
    expect(seen[0]?.authorization).toMatch(/^Basic /);
    expect(other.seen).toEqual([
      { method: 'POST', path: '/elsewhere', body: BODY, authorization: null },
    ]);
  });
});
