// A local HTTP server that plays a scripted Anthropic model, so the real `claude` binary can
// be driven through real tool calls in end-to-end tests without any network.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  buildMessage,
  DEFAULT_USAGE,
  messageJson,
  messageSse,
  type ScriptedTurn,
  type ScriptedUsage,
} from './model-server-response.js';
import {
  classifyRequest,
  estimateTokens,
  requestedModel,
  toolResultsIn,
  type RecordedToolResult,
  type RequestKind,
} from './model-server-requests.js';

export type { ScriptedBlock, ScriptedTurn, ScriptedUsage } from './model-server-response.js';
export type { RecordedToolResult, RequestKind } from './model-server-requests.js';
export { CLAUDE_ARGS, claudeBinPath, claudeEnv } from './model-server-claude.js';

/** An API error answered instead of a message (e.g. 401 authentication_error). */
export interface ScriptedError {
  error: { status: number; type: string; message: string };
  /**
   * Extra response headers (e.g. `anthropic-ratelimit-unified-*`, `retry-after`); a null value
   * drops a default one (`x-should-retry: false`, so that the client may retry as it would).
   */
  headers?: Record<string, string | null>;
}

/** A turn answered with extra response headers (e.g. a usage warning on a good answer). */
export interface ScriptedTurnWithHeaders {
  turn: ScriptedTurn;
  headers: Record<string, string>;
}

/** What a script function is told about the main-conversation request it answers. */
export interface ScriptRequest {
  /** 0 for the first main-conversation request, then 1, 2, … */
  turn: number;
  body: unknown;
  /** Tool results that arrived with this request (not seen in an earlier one). */
  newToolResults: RecordedToolResult[];
}

/** A list of turns, one per main request, or a function choosing each turn (undefined = done). */
export type Script =
  | (ScriptedTurn | ScriptedError | ScriptedTurnWithHeaders)[]
  | ((
      request: ScriptRequest,
    ) => ScriptedTurn | ScriptedError | ScriptedTurnWithHeaders | undefined);

export interface ModelServerOptions {
  /** Answer to main requests once the script is exhausted. Default 'Done.' */
  finalText?: string | undefined;
  /** Answer to auxiliary requests (titles, topic detection, …). Default 'OK' */
  auxiliaryText?: string;
  /** Token counts reported with every answer; defaults to DEFAULT_USAGE. */
  usage?: Partial<ScriptedUsage>;
}

export interface RecordedRequest {
  method: string;
  /** Path without the query string (Claude Code adds `?beta=true`). */
  path: string;
  kind: RequestKind;
  headers: http.IncomingHttpHeaders;
  /** Parsed JSON body, the raw text when it is not JSON, undefined when empty. */
  body: unknown;
}

export interface ModelServer {
  /** Base URL for ANTHROPIC_BASE_URL, e.g. http://127.0.0.1:41234 */
  url: string;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  /** Results of the scripted tool calls, in the order they came back. */
  toolResults: RecordedToolResult[];
  /** Failures of the server itself (a throwing script function), answered with HTTP 400. */
  errors: Error[];
  /** Main-conversation requests answered so far. */
  mainTurns(): number;
  close(): Promise<void>;
}

/** Starts the scripted model on 127.0.0.1 with a free port. */
export async function startModelServer(
  script: Script,
  options: ModelServerOptions = {},
): Promise<ModelServer> {
  const usage: ScriptedUsage = { ...DEFAULT_USAGE, ...options.usage };
  const requests: RecordedRequest[] = [];
  const toolResults: RecordedToolResult[] = [];
  const errors: Error[] = [];
  const toolCalls = new Map<string, { tool: string; input: Record<string, unknown> }>();
  let turn = 0;
  let ids = 0;

  const nextStep = (body: unknown): ScriptedTurn | ScriptedError | ScriptedTurnWithHeaders => {
    const newToolResults = recordToolResults(body, toolCalls, toolResults);
    const step =
      typeof script === 'function' ? script({ turn, body, newToolResults }) : script[turn];
    turn += 1;
    return step ?? [{ text: options.finalText ?? 'Done.' }];
  };

  const answer = (recorded: RecordedRequest, res: http.ServerResponse): void => {
    const { kind, body } = recorded;
    if (kind === 'count-tokens') return sendJson(res, 200, { input_tokens: estimateTokens(body) });
    if (kind === 'other') {
      // Connection probes (Claude Code sends `HEAD /` before its first request).
      if (recorded.method === 'HEAD' || recorded.method === 'GET') return sendJson(res, 200, {});
      return sendError(res, { status: 404, type: 'not_found_error', message: recorded.path });
    }
    const scripted = kind === 'main' ? nextStep(body) : [{ text: options.auxiliaryText ?? 'OK' }];
    if ('error' in scripted) return sendError(res, scripted.error, scripted.headers);
    const [step, headers] = 'turn' in scripted ? [scripted.turn, scripted.headers] : [scripted, {}];
    ids += 1;
    const message = buildMessage(
      step,
      {
        messageId: `msg_scripted_${ids}`,
        nextToolId: () => {
          ids += 1;
          return `toolu_scripted_${ids}`;
        },
      },
      requestedModel(body),
      usage,
    );
    for (const block of message.content) {
      if (block.type === 'tool_use')
        toolCalls.set(block.id, { tool: block.name, input: block.input });
    }
    const streaming =
      typeof body === 'object' && body !== null && 'stream' in body && body.stream === true;
    if (!streaming) return sendJsonText(res, 200, messageJson(message), headers);
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      ...headers,
    });
    res.end(messageSse(message));
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const body = parseBody(Buffer.concat(chunks).toString('utf8'));
      const method = req.method ?? 'GET';
      const recorded: RecordedRequest = {
        method,
        path,
        kind: classifyRequest(method, path, body),
        headers: req.headers,
        body,
      };
      requests.push(recorded);
      try {
        answer(recorded, res);
      } catch (error) {
        const failure = error instanceof Error ? error : new Error(String(error));
        errors.push(failure);
        // 400 is not retried by the client, so a broken script ends the run quickly.
        sendError(res, {
          status: 400,
          type: 'invalid_request_error',
          message: `scripted model server: ${failure.message}`,
        });
      }
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    toolResults,
    errors,
    mainTurns: () => turn,
    close: () =>
      new Promise<void>((resolve) => {
        // The client keeps connections alive; close them so close() does not wait on them.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function recordToolResults(
  body: unknown,
  toolCalls: Map<string, { tool: string; input: Record<string, unknown> }>,
  recorded: RecordedToolResult[],
): RecordedToolResult[] {
  const fresh: RecordedToolResult[] = [];
  for (const result of toolResultsIn(body)) {
    if (recorded.some((known) => known.toolUseId === result.toolUseId)) continue;
    const call = toolCalls.get(result.toolUseId);
    const entry = { ...result, tool: call?.tool, input: call?.input };
    recorded.push(entry);
    fresh.push(entry);
  }
  return fresh;
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
  sendJsonText(res, status, JSON.stringify(value));
}

function sendJsonText(
  res: http.ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(text);
}

function sendError(
  res: http.ServerResponse,
  error: ScriptedError['error'],
  extra: Record<string, string | null> = {},
): void {
  // x-should-retry: false keeps the client's SDK from retrying a scripted failure.
  const merged: Record<string, string | null> = {
    'content-type': 'application/json',
    'x-should-retry': 'false',
    ...extra,
  };
  const headers = Object.fromEntries(
    Object.entries(merged).filter((entry): entry is [string, string] => entry[1] !== null),
  );
  res.writeHead(error.status, headers);
  res.end(JSON.stringify({ type: 'error', error: { type: error.type, message: error.message } }));
}
