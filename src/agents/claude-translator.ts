import { z } from 'zod';
import { lineKind, lineType, parseJsonLine } from './json-line.js';
import { unknownClaudeKind } from './claude-stream-types.js';
import { summarizeToolInput } from './tool-summary.js';
import {
  limitFromRejected,
  limitFromResult,
  RateLimitLine,
  rateLimitUsage,
  rateLimitWarning,
  type RateLimitInfo,
} from './claude-limits.js';
import { formatDuration } from '../format/units.js';
import type { AgentEvent, AgentLimit, StreamTranslator, TranslatedOutcome } from './types.js';

// Only the fields ralphtool reads; everything else in Claude Code's stream is ignored.
const count = z.number().nullish();
const Usage = z.object({
  input_tokens: count,
  output_tokens: count,
  cache_read_input_tokens: count,
  cache_creation_input_tokens: count,
});
const SystemLine = z.object({
  type: z.literal('system'),
  subtype: z.string().nullish(),
  error: z.string().nullish(),
  error_status: z.number().nullish(),
  // api_retry: Claude Code retries a failed API request (429, 529, no connection) after a delay.
  attempt: count,
  max_retries: count,
  retry_delay_ms: count,
  // init: the version named in an `unknown` event's hint.
  claude_code_version: z.string().nullish(),
});
const AssistantLine = z.object({
  type: z.literal('assistant'),
  message: z.object({ id: z.string().nullish(), content: z.array(z.unknown()) }),
  parent_tool_use_id: z.string().nullish(),
  error: z.string().nullish(),
});
const ResultLine = z.object({
  type: z.literal('result'),
  subtype: z.string().nullish(),
  is_error: z.boolean().nullish(),
  result: z.string().nullish(),
  errors: z.array(z.string()).nullish(),
  num_turns: count,
  total_cost_usd: count,
  duration_ms: count,
  api_error_status: z.number().nullish(),
  usage: Usage.nullish(),
});
const TextBlock = z.object({ type: z.literal('text'), text: z.string() });
const ToolUseBlock = z.object({
  type: z.literal('tool_use'),
  name: z.string(),
  input: z.record(z.string(), z.unknown()).nullish(),
});

/** What Claude Code says when it is not logged in or its key is refused. */
const AUTH_FAILURE =
  /invalid api key|please run \/login|not logged in|authentication_error|oauth token (?:has expired|has been revoked)|invalid bearer token/i;
const ROOT_REFUSAL = /dangerously-skip-permissions cannot be used with root\/sudo privileges/i;

export const CLAUDE_AUTH_MESSAGE =
  'Claude Code is not logged in or its API key was refused: run `claude` once and log in, or set ANTHROPIC_API_KEY.';
export const CLAUDE_ROOT_MESSAGE =
  'Claude Code refuses --dangerously-skip-permissions when run as root: set IS_SANDBOX=1 if this machine is a sandbox, or run ralphtool as a normal user.';

/**
 * Reads `claude -p --output-format stream-json --verbose`. The final answer is the
 * `result` text, else the agent's last own text; text it only received (tool results,
 * a sub-agent's words) never counts. Reading stops at the first `result`.
 */
export function createClaudeTranslator(options: { cwd?: string } = {}): StreamTranslator {
  let lastText = '';
  let lastTextMessageId: string | null = null;
  let resultText: string | null = null;
  let ended = false;
  let agentError: string | null = null;
  let fatal: string | null = null;
  let budgetReached: string | null = null;
  let limit: AgentLimit | null = null;
  // The last `rejected` rate_limit_event (its reset time) and the last api_retry's status.
  let rejected: RateLimitInfo | null = null;
  let lastRetryStatus: number | null | undefined;
  let version: string | null = null;

  // A kind of line this Claude Code version does not print, or a known one whose fields changed.
  const unknown = (what: string): AgentEvent => ({
    type: 'unknown',
    what,
    ...(version !== null ? { version } : {}),
  });
  /** The handler's events for a line that fits its schema; an `unknown` event for one that does not. */
  const ifFits = <T>(
    json: unknown,
    parsed: { success: true; data: T } | { success: false },
    handle: (value: T) => AgentEvent[],
  ): AgentEvent[] =>
    parsed.success ? handle(parsed.data) : [unknown(`${lineKind(json)} (unexpected fields)`)];

  const authFailure = (detail: string): AgentEvent[] => {
    if (fatal) return [];
    fatal = `${CLAUDE_AUTH_MESSAGE} (${detail})`;
    return [{ type: 'error', message: fatal, fatal: true }];
  };

  const onSystem = (line: z.infer<typeof SystemLine>): AgentEvent[] => {
    const refused = line.error === 'authentication_failed' || line.error_status === 401;
    if (line.subtype === 'init' && line.claude_code_version) version = line.claude_code_version;
    if (refused) return authFailure(`API answered ${line.error_status ?? line.error}`);
    if (line.subtype === API_RETRY) lastRetryStatus = line.error_status ?? null;
    return line.subtype === API_RETRY ? [{ type: 'notice', text: retryNotice(line) }] : [];
  };

  // Claude Code's own account of the subscription's limit: a rejection is remembered for the
  // result that follows (its reset time), a warning is shown, `allowed` says nothing.
  const onRateLimit = (line: z.infer<typeof RateLimitLine>): AgentEvent[] => {
    const info = line.rate_limit_info;
    if (info.status === 'rejected') rejected = info;
    const warning = rateLimitWarning(info);
    const usage = rateLimitUsage(info);
    return [
      ...(usage ? [{ type: 'usage' as const, ...usage }] : []),
      ...(warning ? [{ type: 'notice' as const, text: warning }] : []),
    ];
  };

  const onAssistant = (line: z.infer<typeof AssistantLine>): AgentEvent[] => {
    const events: AgentEvent[] = [];
    const texts: string[] = [];
    for (const raw of line.message.content) {
      const text = TextBlock.safeParse(raw);
      if (text.success) {
        texts.push(text.data.text);
        if (text.data.text.trim() !== '') events.push({ type: 'message', text: text.data.text });
        continue;
      }
      const tool = ToolUseBlock.safeParse(raw);
      if (tool.success) {
        const summary = summarizeToolInput(tool.data.input ?? {}, options.cwd);
        events.push({ type: 'tool', name: tool.data.name, summary });
      }
    }
    const joined = texts.join('\n');
    if (line.error && (line.error === 'authentication_failed' || AUTH_FAILURE.test(joined))) {
      events.push(...authFailure(joined || line.error));
    }
    // A sub-agent's words are not the agent's answer.
    if (texts.length > 0 && !line.parent_tool_use_id) {
      const id = line.message.id ?? null;
      // Claude Code may split one message into several lines, one per content block.
      lastText = id !== null && id === lastTextMessageId ? `${lastText}\n${joined}` : joined;
      lastTextMessageId = id;
    }
    return events;
  };

  const onResult = (line: z.infer<typeof ResultLine>): AgentEvent[] => {
    ended = true;
    resultText = line.result ?? null;
    const isError = line.is_error === true || (line.subtype ?? '').startsWith('error');
    const events: AgentEvent[] = [
      {
        type: 'result',
        turns: line.num_turns ?? 0,
        tokens: {
          input: line.usage?.input_tokens ?? 0,
          output: line.usage?.output_tokens ?? 0,
          cacheRead: line.usage?.cache_read_input_tokens ?? 0,
          cacheWrite: line.usage?.cache_creation_input_tokens ?? 0,
        },
        costUsd: line.total_cost_usd ?? 0,
        durationMs: line.duration_ms ?? 0,
        isError,
        text: line.result ?? '',
      },
    ];
    if (!isError) return events;
    if (line.subtype === MAX_BUDGET) {
      // --max-budget-usd spent: the budget's end, not the agent's failure (no warning either).
      budgetReached = line.errors?.join('; ') || 'Claude Code reached --max-budget-usd';
      return events;
    }
    const detail = line.result || line.errors?.join('; ') || line.subtype || 'unknown error';
    // Claude Code marks some failures `subtype: "success"` with `is_error`: naming that subtype
    // would only confuse; the others (error_max_turns, …) say what went wrong.
    const kind = line.subtype && line.subtype !== 'success' ? ` (${line.subtype})` : '';
    agentError = `Claude Code reported an error${kind}: ${detail}`;
    if (line.api_error_status === 401 || AUTH_FAILURE.test(detail)) {
      events.push(...authFailure(detail));
    }
    if (fatal) return events;
    const status = line.api_error_status ?? null;
    limit = limitFromResult({ status, text: line.result ?? '', rejected, lastRetryStatus });
    // A limit is waited out, not an error of the agent's: its words are shown as a notice.
    events.push(
      limit
        ? { type: 'notice', text: `Claude Code stopped: ${detail}` }
        : { type: 'error', message: agentError, fatal: false },
    );
    return events;
  };

  const readKnown = (json: unknown, type: unknown): AgentEvent[] => {
    if (type === 'system') return ifFits(json, SystemLine.safeParse(json), onSystem);
    if (type === 'assistant') return ifFits(json, AssistantLine.safeParse(json), onAssistant);
    if (type === 'result') return ifFits(json, ResultLine.safeParse(json), onResult);
    if (type === 'rate_limit_event') {
      return ifFits(json, RateLimitLine.safeParse(json), onRateLimit);
    }
    return [];
  };

  return {
    push(text, truncated) {
      if (ended || truncated) return [];
      // Tool results echoed back to the model (the bulk of a stream, kilobytes each) say
      // nothing ralphtool reads: not parsed at all. Any subtype counts as known for `user`.
      if (text.startsWith(USER_LINE)) return [];
      const json = parseJsonLine(text);
      const type = lineType(json);
      // Not a JSON object (a stray text line): skipped; a stream of nothing else is stopped
      // early by run-agent-process.ts.
      const kind = lineKind(json);
      if (kind === null) return [];
      const events = readKnown(json, type);
      const subtype = (json as { subtype?: unknown }).subtype;
      const news = typeof type === 'string' ? unknownClaudeKind(type, subtype) : kind;
      // A new subtype of a type that is read (a `result`) is still read: it may end the stream.
      const reported = events.some((e) => e.type === 'unknown');
      return news === null || reported ? events : [...events, unknown(news)];
    },
    format: 'json-lines',
    finish(stderrTail): TranslatedOutcome {
      if (!fatal && ROOT_REFUSAL.test(stderrTail)) fatal = CLAUDE_ROOT_MESSAGE;
      // Rejected, then no result at all: Claude Code ended at the limit without saying more.
      if (!ended && !fatal && rejected !== null) limit = limitFromRejected(rejected);
      const budget = budgetReached !== null ? { budgetReached } : {};
      return { finalAnswer: resultText ?? lastText, agentError, fatal, limit, ...budget };
    },
    isProgress(line) {
      // A retry notice is Claude Code waiting, not working: it must not keep the idle timer off.
      // Tool results and the model's turns (nearly every byte of a stream) are never one: their
      // opening says so without a scan of kilobytes for the word.
      if (line.startsWith(USER_LINE) || line.startsWith(ASSISTANT_LINE)) return true;
      if (!line.includes(API_RETRY)) return true;
      const json = parseJsonLine(line);
      const parsed = SystemLine.safeParse(json);
      return !(parsed.success && parsed.data.subtype === API_RETRY);
    },
  };
}

const API_RETRY = 'api_retry';
/** How Claude Code begins every `user` line (its key order is fixed by its own serializer). */
const USER_LINE = '{"type":"user"';
/** How Claude Code begins every `assistant` line. */
const ASSISTANT_LINE = '{"type":"assistant"';
/** The `result` subtype of an attempt stopped by `--max-budget-usd` (seen from Claude Code 2.1). */
const MAX_BUDGET = 'error_max_budget_usd';

/** `API 429 (rate_limit) — Claude Code retrying 3/10 in 2s`: why the agent is silent. */
function retryNotice(line: z.infer<typeof SystemLine>): string {
  const status =
    line.error_status !== null && line.error_status !== undefined
      ? `API ${line.error_status}`
      : 'API unreachable';
  const kind = line.error && line.error !== 'unknown' ? ` (${line.error})` : '';
  const count =
    line.attempt !== null && line.attempt !== undefined
      ? ` ${line.attempt}${line.max_retries ? `/${line.max_retries}` : ''}`
      : '';
  const ms = line.retry_delay_ms;
  // Short delays to a tenth of a second (`0.6s`, `1.1s`), longer ones as durations (`1m05s`).
  const delay =
    ms === null || ms === undefined
      ? ''
      : ` in ${ms < 10_000 ? `${Math.round(ms / 100) / 10}s` : formatDuration(ms)}`;
  return `${status}${kind} — Claude Code retrying${count}${delay}`;
}
