// Reading what Claude Code sends: which requests belong to the main conversation, and the
// tool results inside them. Pure: no I/O.

/** What a request was for; only `main` requests consume the script. */
export type RequestKind = 'main' | 'auxiliary' | 'count-tokens' | 'other';

/** A tool call the scripted model made, with the result the client sent back. */
export interface RecordedToolResult {
  toolUseId: string;
  /** The tool's name and input as the script gave them (undefined for unknown ids). */
  tool: string | undefined;
  input: Record<string, unknown> | undefined;
  /** The result's text (text parts joined with newlines). */
  content: string;
  isError: boolean;
}

/**
 * Main-conversation requests are `POST /v1/messages` whose body offers `tools`. Claude Code
 * offers its whole tool set (Bash, Edit, Write, …) on every turn of the agent loop, while
 * its side requests (titles, topic detection, summaries, quota checks, usually on a small
 * model) ask for plain text without tools. The model name is not used: `--model` changes
 * it and side requests may use the main model too. `count_tokens` is answered on its own.
 */
export function classifyRequest(method: string, pathname: string, body: unknown): RequestKind {
  if (method !== 'POST') return 'other';
  if (pathname === '/v1/messages/count_tokens') return 'count-tokens';
  if (pathname !== '/v1/messages') return 'other';
  return isRecord(body) && Array.isArray(body['tools']) && body['tools'].length > 0
    ? 'main'
    : 'auxiliary';
}

/** Every tool_result block in a request's messages (the client resends the whole history). */
export function toolResultsIn(
  body: unknown,
): { toolUseId: string; content: string; isError: boolean }[] {
  if (!isRecord(body) || !Array.isArray(body['messages'])) return [];
  const results: { toolUseId: string; content: string; isError: boolean }[] = [];
  for (const message of body['messages']) {
    if (!isRecord(message) || !Array.isArray(message['content'])) continue;
    for (const block of message['content']) {
      if (!isRecord(block) || block['type'] !== 'tool_result') continue;
      results.push({
        toolUseId: String(block['tool_use_id']),
        content: resultText(block['content']),
        isError: block['is_error'] === true,
      });
    }
  }
  return results;
}

/** A rough token count for count_tokens: about four characters per token. */
export function estimateTokens(body: unknown): number {
  return Math.max(1, Math.ceil(JSON.stringify(body ?? '').length / 4));
}

/** The model a request names, for echoing back in the answer. */
export function requestedModel(body: unknown): string {
  return isRecord(body) && typeof body['model'] === 'string' ? body['model'] : 'claude-scripted';
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => (isRecord(part) && typeof part['text'] === 'string' ? part['text'] : ''))
    .filter((text) => text !== '')
    .join('\n');
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
