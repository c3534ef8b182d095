import { afterEach, describe, expect, it } from 'vitest';
import {
  startModelServer,
  type ModelServer,
  type Script,
  type ScriptRequest,
} from './model-server.js';

const servers: ModelServer[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function serve(script: Script, finalText?: string): Promise<ModelServer> {
  const server = await startModelServer(script, { finalText, auxiliaryText: 'a title' });
  servers.push(server);
  return server;
}

const TOOLS = [{ name: 'Bash', description: 'run', input_schema: { type: 'object' } }];

async function post(server: ModelServer, path: string, body: object): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

function mainBody(extra: object = {}): object {
  return { model: 'claude-test', max_tokens: 100, tools: TOOLS, messages: [], ...extra };
}

interface SseEvent {
  event: string;
  data: Record<string, unknown>;
}

function parseSse(text: string): SseEvent[] {
  return text
    .split('\n\n')
    .filter((chunk) => chunk.trim() !== '')
    .map((chunk) => {
      const [eventLine = '', dataLine = ''] = chunk.split('\n');
      return {
        event: eventLine.replace('event: ', ''),
        data: JSON.parse(dataLine.replace('data: ', '')) as Record<string, unknown>,
      };
    });
}

describe('scripted model server protocol', () => {
  it('streams a tool call as SSE with the input JSON in several pieces', async () => {
    const input = { command: 'cat hello.txt', description: 'Show the file' };
    const server = await serve([[{ text: 'Looking.' }, { tool: 'Bash', input }]]);

    const response = await post(server, '/v1/messages?beta=true', mainBody({ stream: true }));

    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const events = parseSse(await response.text());
    expect(events[0]?.event).toBe('message_start');
    expect(events.at(-1)?.event).toBe('message_stop');
    expect(events.at(-2)?.data).toMatchObject({
      delta: { stop_reason: 'tool_use' },
      usage: { output_tokens: 40, cache_read_input_tokens: 300 },
    });
    const pieces = events
      .filter((e) => e.event === 'content_block_delta' && e.data['index'] === 1)
      .map((e) => (e.data['delta'] as { partial_json: string }).partial_json);
    expect(pieces.length).toBeGreaterThan(1);
    expect(JSON.parse(pieces.join(''))).toEqual(input);
    const texts = events
      .filter((e) => e.event === 'content_block_delta' && e.data['index'] === 0)
      .map((e) => (e.data['delta'] as { type: string; text: string }).text);
    expect(texts.join('')).toBe('Looking.');
    expect(server.requests[0]).toMatchObject({ kind: 'main', path: '/v1/messages' });
  });

  it('answers side requests without consuming the script', async () => {
    const server = await serve([[{ text: 'first turn' }]], 'all done');

    const head = await fetch(`${server.url}/`, { method: 'HEAD' });
    const counted = (await (
      await post(server, '/v1/messages/count_tokens', mainBody())
    ).json()) as { input_tokens: number };
    const title = (await (
      await post(server, '/v1/messages', { model: 'claude-haiku', max_tokens: 10, messages: [] })
    ).json()) as { content: { text: string }[] };
    const first = (await (await post(server, '/v1/messages', mainBody())).json()) as {
      content: { text: string }[];
      stop_reason: string;
    };
    const exhausted = (await (await post(server, '/v1/messages', mainBody())).json()) as {
      content: { text: string }[];
    };

    expect(head.status).toBe(200);
    expect(counted.input_tokens).toBeGreaterThan(0);
    expect(title.content[0]?.text).toBe('a title');
    expect(first).toMatchObject({ content: [{ text: 'first turn' }], stop_reason: 'end_turn' });
    expect(exhausted.content[0]?.text).toBe('all done');
    expect(server.requests.map((request) => request.kind)).toEqual([
      'other',
      'count-tokens',
      'auxiliary',
      'main',
      'main',
    ]);
    expect(server.mainTurns()).toBe(2);
  });

  it('records tool results once and hands new ones to a script function', async () => {
    const seen: ScriptRequest[] = [];
    const server = await serve((request) => {
      seen.push(request);
      return request.turn === 0 ? [{ tool: 'Bash', input: { command: 'ls' } }] : undefined;
    });

    const first = (await (await post(server, '/v1/messages', mainBody())).json()) as {
      content: { id: string }[];
    };
    const toolUseId = first.content[0]?.id ?? '';
    const history = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: first.content },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: toolUseId,
            content: [{ type: 'text', text: 'a.txt' }],
          },
        ],
      },
    ];
    await post(server, '/v1/messages', mainBody({ messages: history }));
    await post(
      server,
      '/v1/messages',
      mainBody({ messages: [...history, { role: 'user', content: 'more' }] }),
    );

    expect(server.toolResults).toEqual([
      { toolUseId, tool: 'Bash', input: { command: 'ls' }, content: 'a.txt', isError: false },
    ]);
    expect(seen.map((request) => request.newToolResults.length)).toEqual([0, 1, 0]);
  });

  it('answers a scripted API error with its status and an error body', async () => {
    const server = await serve([
      { error: { status: 401, type: 'authentication_error', message: 'invalid x-api-key' } },
    ]);

    const response = await post(server, '/v1/messages', mainBody({ stream: true }));

    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      type: 'error',
      error: { type: 'authentication_error', message: 'invalid x-api-key' },
    });
  });

  it('turns a throwing script function into a recorded error and an HTTP 400', async () => {
    const server = await serve(() => {
      throw new Error('script broke');
    });

    const response = await post(server, '/v1/messages', mainBody());

    expect(response.status).toBe(400);
    expect(server.errors.map((error) => error.message)).toEqual(['script broke']);
  });
});
