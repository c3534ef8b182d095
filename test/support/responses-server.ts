// A local HTTP server that plays a scripted OpenAI model behind the Responses API
// (`POST /v1/responses`, server-sent events), so the real `codex` binary can be driven through
// real tool calls in end-to-end tests without any network. The Anthropic twin is
// model-server.ts; what Codex sends and prints is recorded in test/fixtures/codex-stream/.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { isRecord } from './model-server-requests.js';

/** What the scripted model does with one request. */
export type ResponsesStep =
  /** An assistant message: ends Codex's turn. */
  | { text: string }
  /** A call of Codex's `exec_command` tool (its shell): Codex runs it and asks again. */
  | { shell: string }
  /** An HTTP error with this JSON body (e.g. 401 `invalid_api_key`, 500 `server_error`). */
  | { status: number; body: unknown }
  /** A `response.failed` event in a 200 stream (e.g. code `rate_limit_exceeded`). */
  | { failed: { code: string; message: string } }
  /** `response.created`, then the connection is cut (Codex says `Reconnecting... n/m`). */
  | { drop: true };

/** What a script is told about the request it answers. */
export interface ResponsesRequest {
  /** 0 for the first request the server got, then 1, 2, … */
  index: number;
  body: unknown;
  /** The text of the user message holding ralphtool's prompt (`# Working on Story …`), or ''. */
  prompt: string;
  /** How many tool calls of this conversation were answered already (0 for its first request). */
  step: number;
}

/** Chooses each request's answer; undefined answers `Done.` */
export type ResponsesScript = (request: ResponsesRequest) => ResponsesStep | undefined;

/** A tool call the scripted model made, with the output Codex sent back. */
export interface RecordedToolOutput {
  callId: string;
  command: string | undefined;
  output: string;
}

export interface ResponsesServer {
  /** The provider's `base_url`, e.g. http://127.0.0.1:41234/v1 */
  baseUrl: string;
  /** Every request's parsed body (or raw text), in order, with its path. */
  requests: { path: string; body: unknown; authorization: string | undefined }[];
  /** The outputs of the scripted tool calls, in the order they came back. */
  toolOutputs: RecordedToolOutput[];
  /** Failures of the server itself (a throwing script), answered with HTTP 400. */
  errors: Error[];
  close(): Promise<void>;
}

/** Token counts of every answer, as the Responses API reports them. */
export const SCRIPTED_USAGE = {
  input_tokens: 1000,
  input_tokens_details: { cached_tokens: 400 },
  output_tokens: 50,
  output_tokens_details: { reasoning_tokens: 10 },
  total_tokens: 1050,
};

export async function startResponsesServer(script: ResponsesScript): Promise<ResponsesServer> {
  const requests: ResponsesServer['requests'] = [];
  const toolOutputs: RecordedToolOutput[] = [];
  const errors: Error[] = [];
  const commands = new Map<string, string>();
  let ids = 0;

  const answer = (body: unknown, res: http.ServerResponse): void => {
    const input = isRecord(body) && Array.isArray(body['input']) ? body['input'] : [];
    for (const item of input) {
      if (!isRecord(item) || item['type'] !== 'function_call_output') continue;
      const callId = String(item['call_id']);
      if (toolOutputs.some((known) => known.callId === callId)) continue;
      toolOutputs.push({ callId, command: commands.get(callId), output: outputText(item) });
    }
    const step = script({
      index: requests.length - 1,
      body,
      prompt: promptOf(input),
      step: input.filter((item) => isRecord(item) && item['type'] === 'function_call').length,
    }) ?? { text: 'Done.' };
    ids += 1;
    const id = `resp_scripted_${ids}`;
    if ('status' in step) return sendJson(res, step.status, step.body);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const created = { type: 'response.created', response: { id } };
    if ('drop' in step) {
      res.write(sse([created]));
      res.destroy();
      return;
    }
    if ('failed' in step) {
      const failed = { id, status: 'failed', error: step.failed };
      res.end(sse([created, { type: 'response.failed', response: failed }]));
      return;
    }
    const item = 'shell' in step ? functionCall(ids, step.shell) : message(ids, step.text);
    if ('shell' in step) commands.set(String(item['call_id']), step.shell);
    res.end(
      sse([
        created,
        {
          type: 'response.output_item.added',
          output_index: 0,
          item: { ...item, status: 'in_progress' },
        },
        { type: 'response.output_item.done', output_index: 0, item },
        { type: 'response.completed', response: { id, usage: SCRIPTED_USAGE } },
      ]),
    );
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const body = parseBody(Buffer.concat(chunks).toString('utf8'));
      requests.push({ path, body, authorization: req.headers.authorization });
      if (req.method !== 'POST' || path !== '/v1/responses') {
        return sendJson(res, 404, { error: { message: `no ${path}`, type: 'not_found' } });
      }
      try {
        answer(body, res);
      } catch (error) {
        const failure = error instanceof Error ? error : new Error(String(error));
        errors.push(failure);
        // A 400 is not retried by Codex, so a broken script ends the attempt quickly.
        sendJson(res, 400, { error: { message: `scripted server: ${failure.message}` } });
      }
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    toolOutputs,
    errors,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function functionCall(n: number, command: string): Record<string, unknown> {
  return {
    type: 'function_call',
    id: `fc_scripted_${n}`,
    call_id: `call_scripted_${n}`,
    name: 'exec_command',
    arguments: JSON.stringify({ cmd: command }),
    status: 'completed',
  };
}

function message(n: number, text: string): Record<string, unknown> {
  return {
    type: 'message',
    id: `msg_scripted_${n}`,
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text, annotations: [] }],
  };
}

function sse(events: Record<string, unknown>[]): string {
  return events.map((e) => `event: ${String(e['type'])}\ndata: ${JSON.stringify(e)}\n\n`).join('');
}

/** The user message that holds ralphtool's prompt (Codex sends its environment first). */
function promptOf(input: unknown[]): string {
  for (const item of input) {
    if (!isRecord(item) || item['role'] !== 'user' || !Array.isArray(item['content'])) continue;
    const text = item['content']
      .map((part) => (isRecord(part) && typeof part['text'] === 'string' ? part['text'] : ''))
      .join('\n');
    if (/^# Working on Story /m.test(text)) return text;
  }
  return '';
}

function outputText(item: Record<string, unknown>): string {
  const output = item['output'];
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) {
    return output
      .map((part) => (isRecord(part) && typeof part['text'] === 'string' ? part['text'] : ''))
      .join('');
  }
  return JSON.stringify(output);
}

function parseBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function sendJson(res: http.ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}
