// A local HTTP server that plays a scripted Gemini model (the Gemini API's REST surface), so the
// real `gemini` binary can be driven through real tool calls without any network.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One part of a scripted model answer: text, or a call of one of Gemini CLI's tools. */
export type GeminiPart = { text: string } | { tool: string; args: Record<string, unknown> };
/** One model answer: its parts, streamed as one SSE chunk each. */
export type GeminiTurn = GeminiPart[];
/** An API error answered instead (e.g. 400 API_KEY_INVALID, 500 INTERNAL). */
export interface GeminiError {
  error: { code: number; status: string; message: string; details?: unknown[] };
}

/** What a script function is told about the main request it answers. */
export interface GeminiScriptRequest {
  /** Parsed JSON body of `:streamGenerateContent`. */
  body: unknown;
  /** The model named in the path. */
  model: string;
}

/** Chooses the answer to each main request; undefined = "Done." */
export type GeminiScript = (request: GeminiScriptRequest) => GeminiTurn | GeminiError | undefined;

export interface GeminiRequest {
  method: string;
  /** Path without the query string, e.g. `/v1beta/models/gemini-2.5-pro:streamGenerateContent`. */
  path: string;
  kind: 'main' | 'auxiliary' | 'count-tokens' | 'other';
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

/** A function call the scripted model made, with the response Gemini CLI sent back. */
export interface GeminiToolResponse {
  name: string;
  /** `{ output: … }` on success, `{ error: … }` on failure, as Gemini CLI sends it. */
  response: Record<string, unknown>;
}

export interface GeminiServer {
  /** Base URL for GOOGLE_GEMINI_BASE_URL, e.g. http://127.0.0.1:41234 */
  url: string;
  /** Every request received, in order. */
  requests: GeminiRequest[];
  /** Failures of the server itself (a throwing script), answered with HTTP 400. */
  errors: Error[];
  /** Main requests answered so far. */
  mainTurns(): number;
  /** Every distinct function response Gemini CLI sent back, in order. */
  toolResponses(): GeminiToolResponse[];
  close(): Promise<void>;
}

/** Token counts reported with every main answer (Gemini CLI sums them in its stats). */
export const GEMINI_USAGE = { promptTokenCount: 1200, candidatesTokenCount: 80 };

/** The answer the router's classifier expects (Gemini CLI picks a model when none is given). */
const ROUTER_ANSWER = JSON.stringify({
  complexity_reasoning: 'scripted model server',
  complexity_score: 10,
});

/** Starts the scripted Gemini API on 127.0.0.1 with a free port. */
export async function startGeminiServer(script: GeminiScript): Promise<GeminiServer> {
  const requests: GeminiRequest[] = [];
  const errors: Error[] = [];
  let turns = 0;

  const answer = (request: GeminiRequest, res: http.ServerResponse): void => {
    if (request.kind === 'count-tokens') {
      return sendJson(res, 200, { totalTokens: JSON.stringify(request.body ?? '').length >> 2 });
    }
    if (request.kind === 'auxiliary') {
      return sendJson(res, 200, candidate([{ text: ROUTER_ANSWER }], true));
    }
    if (request.kind === 'other') {
      return sendJson(res, 404, apiError(404, 'NOT_FOUND', `no such endpoint: ${request.path}`));
    }
    turns += 1;
    const model = /\/models\/([^:/]+):/.exec(request.path)?.[1] ?? 'unknown';
    const step = script({ body: request.body, model }) ?? [{ text: 'Done.' }];
    if ('error' in step) return sendJson(res, step.error.code, step);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    // One SSE event per part, as the real API streams a long answer in several chunks.
    res.end(
      step
        .map(
          (part, i) => `data: ${JSON.stringify(candidate([part], i === step.length - 1))}\r\n\r\n`,
        )
        .join(''),
    );
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const method = req.method ?? 'GET';
      const request: GeminiRequest = {
        method,
        path,
        kind: classify(method, path),
        headers: req.headers,
        body: parseBody(Buffer.concat(chunks).toString('utf8')),
      };
      requests.push(request);
      try {
        answer(request, res);
      } catch (error) {
        const failure = error instanceof Error ? error : new Error(String(error));
        errors.push(failure);
        // 400 is not retried by Gemini CLI, so a broken script ends the run quickly.
        sendJson(
          res,
          400,
          apiError(400, 'INVALID_ARGUMENT', `scripted server: ${failure.message}`),
        );
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
    errors,
    mainTurns: () => turns,
    toolResponses: () => toolResponsesIn(requests),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** `:streamGenerateContent` is the conversation; `:generateContent` the router and other side calls. */
function classify(method: string, path: string): GeminiRequest['kind'] {
  if (method !== 'POST' || !path.startsWith('/v1beta/models/')) return 'other';
  if (path.endsWith(':streamGenerateContent')) return 'main';
  if (path.endsWith(':generateContent')) return 'auxiliary';
  if (path.endsWith(':countTokens')) return 'count-tokens';
  return 'other';
}

function candidate(parts: GeminiPart[], last: boolean): Record<string, unknown> {
  return {
    candidates: [
      {
        content: { role: 'model', parts: parts.map(toApiPart) },
        index: 0,
        ...(last ? { finishReason: 'STOP' } : {}),
      },
    ],
    ...(last
      ? {
          usageMetadata: {
            ...GEMINI_USAGE,
            totalTokenCount: GEMINI_USAGE.promptTokenCount + GEMINI_USAGE.candidatesTokenCount,
          },
        }
      : {}),
    modelVersion: 'gemini-scripted',
  };
}

function toApiPart(part: GeminiPart): Record<string, unknown> {
  return 'text' in part
    ? { text: part.text }
    : { functionCall: { name: part.tool, args: part.args } };
}

function apiError(code: number, status: string, message: string): GeminiError {
  return { error: { code, status, message } };
}

/** The function responses in the requests' histories, each once (every request resends all). */
function toolResponsesIn(requests: GeminiRequest[]): GeminiToolResponse[] {
  const seen = new Map<string, GeminiToolResponse>();
  for (const request of requests) {
    if (request.kind !== 'main') continue;
    for (const [index, part] of contentsOf(request.body)
      .flatMap((c) => c.parts)
      .entries()) {
      const response = (part as { functionResponse?: unknown }).functionResponse;
      if (typeof response !== 'object' || response === null) continue;
      const { id, name, response: body } = response as Record<string, unknown>;
      const key = typeof id === 'string' ? id : `#${index}`;
      if (!seen.has(key)) {
        seen.set(key, {
          name: typeof name === 'string' ? name : '?',
          response: (body ?? {}) as Record<string, unknown>,
        });
      }
    }
  }
  return [...seen.values()];
}

export interface GeminiContent {
  role: string;
  parts: unknown[];
}

/** The `contents` of a request body (the whole conversation so far). */
export function contentsOf(body: unknown): GeminiContent[] {
  if (typeof body !== 'object' || body === null || !('contents' in body)) return [];
  const { contents } = body;
  if (!Array.isArray(contents)) return [];
  return contents.filter(
    (c: unknown): c is GeminiContent =>
      typeof c === 'object' &&
      c !== null &&
      'role' in c &&
      'parts' in c &&
      Array.isArray((c as { parts: unknown }).parts),
  );
}

/** The text parts of one content, joined. */
export function textOf(content: GeminiContent | undefined): string {
  return (content?.parts ?? [])
    .map((p) =>
      typeof p === 'object' && p !== null && 'text' in p && typeof p.text === 'string'
        ? p.text
        : '',
    )
    .join('\n');
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
