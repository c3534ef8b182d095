import { z } from 'zod';
import { ifParsed, lineType, parseJsonLine } from './json-line.js';
import { codexLimit } from './codex-limits.js';
import { oneLine } from './tool-summary.js';
import type { AgentEvent, AgentLimit, StreamTranslator, TranslatedOutcome } from './types.js';

const count = z.number().nullish();
const ItemLine = z.object({
  type: z.enum(['item.started', 'item.updated', 'item.completed']),
  item: z.object({
    id: z.string().nullish(),
    type: z.string(),
    text: z.string().nullish(),
    command: z.string().nullish(),
    message: z.string().nullish(),
    server: z.string().nullish(),
    tool: z.string().nullish(),
    query: z.string().nullish(),
    changes: z.array(z.object({ path: z.string(), kind: z.string().nullish() })).nullish(),
  }),
});
type Item = z.infer<typeof ItemLine>['item'];
const TurnCompleted = z.object({
  type: z.literal('turn.completed'),
  usage: z
    .object({
      input_tokens: count,
      cached_input_tokens: count,
      cache_write_input_tokens: count,
      output_tokens: count,
    })
    .nullish(),
});
const TurnFailed = z.object({
  type: z.literal('turn.failed'),
  error: z.object({ message: z.string().nullish() }).nullish(),
});
const ErrorLine = z.object({ type: z.literal('error'), message: z.string().nullish() });

const AUTH_FAILURE =
  /401 unauthorized|invalid_api_key|incorrect api key|not logged in|missing bearer/i;
export const CODEX_AUTH_MESSAGE =
  'Codex is not logged in or its API key was refused: run `codex login`, or set OPENAI_API_KEY.';

/**
 * Codex's retry notices, as 0.171.0 prints them (test/fixtures/codex-stream/):
 * `Reconnecting... 1/2 (stream disconnected before completion: error sending request)` after a
 * dropped stream, and `Reconnecting... waiting for network (Connection failed: error sending
 * request)`, repeated without end while nothing answers (older versions, as users reported
 * them: `stream disconnected before completion; Reconnecting... 1/5`).
 */
const RECONNECTING = /Reconnecting\.\.\.\s*(\d+\/\d+|waiting for network)/;

/** The line types Codex 0.171.0 prints; any other is reported as `unknown`. */
const KNOWN_TYPES = new Set([
  'thread.started',
  'turn.started',
  'turn.completed',
  'turn.failed',
  'item.started',
  'item.updated',
  'item.completed',
  'error',
]);

/** Tools announced when they start; a long command shows up while it runs. */
const ANNOUNCED_AT_START = new Set(['command_execution', 'mcp_tool_call', 'web_search']);

/**
 * Reads `codex exec --json`. The final answer is the last `agent_message`. Only
 * `turn.completed` / `turn.failed` end a turn: a top-level `error` is a reconnect notice.
 * `elapsedMs` supplies the duration Codex does not report; `now` the clock that turns Codex's
 * "try again at 3:28 PM" into a reset time.
 */
export function createCodexTranslator(
  options: { elapsedMs?: () => number; now?: () => number } = {},
): StreamTranslator {
  let finalAnswer = '';
  let turns = 0;
  let agentError: string | null = null;
  let fatal: string | null = null;
  // A usage/rate limit or transient API failure Codex reported, until a turn completes after it.
  let limit: AgentLimit | null = null;
  const announced = new Set<string>();

  // Only Codex's own error reports (`turn.failed`, a top-level `error`) can say "limit", never
  // an item's text; a `Reconnecting… n/m` notice is Codex still trying.
  const noteLimit = (message: string, source: string): void => {
    const found = codexLimit(message, source, (options.now ?? Date.now)());
    if (found === null) return;
    // `error` then `turn.failed` usually repeat one message: keep a reset time once known.
    limit =
      found.resetsAt === null && limit?.resetsAt ? { ...found, resetsAt: limit.resetsAt } : found;
  };

  const failure = (message: string, isTurnEnd: boolean): AgentEvent[] => {
    if (isTurnEnd) agentError = `Codex reported an error: ${message}`;
    if (AUTH_FAILURE.test(message) && !fatal) {
      fatal = `${CODEX_AUTH_MESSAGE} (${oneLine(message, 200)})`;
      return [{ type: 'error', message: fatal, fatal: true }];
    }
    return [
      { type: 'error', message: isTurnEnd ? (agentError ?? message) : message, fatal: false },
    ];
  };

  const onItem = (line: z.infer<typeof ItemLine>): AgentEvent[] => {
    const { item } = line;
    const key = item.id ?? null;
    if (line.type === 'item.updated') return [];
    if (line.type === 'item.started') {
      if (!ANNOUNCED_AT_START.has(item.type)) return [];
      if (key !== null) announced.add(key);
      return toolEvent(item);
    }
    if (item.type === 'agent_message') {
      finalAnswer = item.text ?? '';
      return finalAnswer.trim() === '' ? [] : [{ type: 'message', text: finalAnswer }];
    }
    if (item.type === 'error') return item.message ? failure(item.message, false) : [];
    if (key !== null && announced.delete(key)) return [];
    return toolEvent(item);
  };

  const onTurnCompleted = (line: z.infer<typeof TurnCompleted>): AgentEvent[] => {
    turns += 1;
    limit = null;
    const input = line.usage?.input_tokens ?? 0;
    const cached = line.usage?.cached_input_tokens ?? 0;
    const written = line.usage?.cache_write_input_tokens ?? 0;
    return [
      {
        type: 'result',
        turns,
        // OpenAI counts cached tokens inside input_tokens; Claude counts them apart. The usage
        // is the whole turn's, summed by Codex over its model requests (one `codex exec` is one
        // turn; its output_tokens include the reasoning tokens).
        tokens: {
          input: Math.max(0, input - cached - written),
          output: line.usage?.output_tokens ?? 0,
          cacheRead: cached,
          cacheWrite: written,
        },
        // Codex reports tokens only: its cost is unknown, not zero.
        costUsd: null,
        durationMs: options.elapsedMs?.() ?? 0,
        isError: false,
        text: finalAnswer,
      },
    ];
  };

  return {
    push(text, truncated) {
      if (truncated) return [];
      const json = parseJsonLine(text);
      const type = lineType(json);
      if (typeof type === 'string' && type.startsWith('item.')) {
        return ifParsed(ItemLine.safeParse(json), onItem);
      }
      if (type === 'turn.completed')
        return ifParsed(TurnCompleted.safeParse(json), onTurnCompleted);
      if (type === 'turn.failed') {
        return ifParsed(TurnFailed.safeParse(json), (l) => {
          noteLimit(l.error?.message ?? '', 'codex turn.failed');
          return failure(l.error?.message || 'turn failed', true);
        });
      }
      if (type === 'error') {
        return ifParsed(ErrorLine.safeParse(json), (l) => {
          const reconnect = reconnectNotice(l.message ?? '');
          if (reconnect !== null) return [{ type: 'notice', text: reconnect }];
          noteLimit(l.message ?? '', 'codex error');
          return failure(l.message || 'error', false);
        });
      }
      if (typeof type === 'string' && !KNOWN_TYPES.has(type))
        return [{ type: 'unknown', what: type }];
      return [];
    },
    finish(): TranslatedOutcome {
      return { finalAnswer, agentError, fatal, limit: fatal ? null : limit };
    },
    isProgress(line) {
      // `Reconnecting... …`, which Codex repeats without end while nothing answers, is no
      // progress: it must not keep the idle timer from stopping an agent that gets nowhere.
      if (!line.includes('Reconnecting')) return true;
      const parsed = ErrorLine.safeParse(parseJsonLine(line));
      return !(parsed.success && reconnectNotice(parsed.data.message ?? '') !== null);
    },
  };
}

/**
 * The notice for one of Codex's `Reconnecting...` errors, or null for another error:
 * `Codex reconnecting 1/2: stream disconnected before completion: …`, `Codex waiting for the
 * network: Connection failed: …`.
 */
function reconnectNotice(message: string): string | null {
  const match = RECONNECTING.exec(message);
  if (match === null) return null;
  const count = match[1] ?? '';
  const reason = message
    .replace(match[0], '')
    .trim()
    .replace(/^\((.*)\)$/s, '$1')
    .replace(/;$/, '')
    .trim();
  const what =
    count === 'waiting for network'
      ? 'Codex waiting for the network'
      : `Codex reconnecting ${count}`;
  return reason ? `${what}: ${oneLine(reason, 200)}` : what;
}

function toolEvent(item: Item): AgentEvent[] {
  switch (item.type) {
    case 'command_execution':
      return [{ type: 'tool', name: 'shell', summary: oneLine(item.command ?? '') }];
    case 'file_change': {
      const changes = (item.changes ?? []).map((c) => `${c.kind ?? 'update'} ${c.path}`);
      return [{ type: 'tool', name: 'patch', summary: oneLine(changes.join(', ')) }];
    }
    case 'mcp_tool_call':
      return [{ type: 'tool', name: `${item.server ?? 'mcp'}.${item.tool ?? '?'}`, summary: '' }];
    case 'web_search':
      return [{ type: 'tool', name: 'web_search', summary: oneLine(item.query ?? '') }];
    default:
      return [];
  }
}
