import { z } from 'zod';
import { ifParsed, lineType, parseJsonLine } from './json-line.js';
import { openCodeLimit } from './opencode-limits.js';
import { oneLine, summarizeToolInput } from './tool-summary.js';
import type { AgentEvent, AgentLimit, StreamTranslator, TranslatedOutcome } from './types.js';

// Only the fields ralphtool reads of `opencode run --format json` (1.18.33): every line is
// `{"type", "timestamp", "sessionID", "part"}`, or `"error"` instead of `"part"`.
const count = z.number().nullish();
const Part = z.object({ sessionID: z.string().nullish(), messageID: z.string().nullish() });
const TextLine = z.object({
  type: z.literal('text'),
  part: Part.extend({ text: z.string(), synthetic: z.boolean().nullish() }),
});
const ToolLine = z.object({
  type: z.literal('tool_use'),
  part: Part.extend({
    tool: z.string(),
    state: z.object({
      status: z.string().nullish(),
      input: z.record(z.string(), z.unknown()).nullish(),
    }),
  }),
});
const StepFinishLine = z.object({
  type: z.literal('step_finish'),
  part: Part.extend({
    reason: z.string().nullish(),
    cost: count,
    tokens: z
      .object({
        input: count,
        output: count,
        reasoning: count,
        cache: z.object({ read: count, write: count }).nullish(),
      })
      .nullish(),
  }),
});
const ErrorLine = z.object({
  type: z.literal('error'),
  timestamp: count,
  error: z.object({
    name: z.string().nullish(),
    data: z
      .object({
        message: z.string().nullish(),
        statusCode: count,
        responseHeaders: z.record(z.string(), z.string()).nullish(),
        responseBody: z.string().nullish(),
      })
      .nullish(),
  }),
});
const SessionOf = z.object({ sessionID: z.string() });

/** Lines read above, and those known to carry nothing ralphtool needs. */
const IGNORED = new Set(['step_start', 'reasoning', 'done']);

const CONTEXT_OVERFLOW = 'ContextOverflowError';
const AUTH_FAILURE =
  /authentication_error|invalid x-api-key|invalid api key|incorrect api key|invalid_api_key|unauthorized/i;

export const OPENCODE_AUTH_MESSAGE =
  "OpenCode is not logged in to its model provider or the provider refused its API key: run `opencode auth login`, or set the provider's API key (e.g. ANTHROPIC_API_KEY).";

/**
 * Reads `opencode run --format json`. The final answer is the agent's last own text (the text
 * parts of its last message that had any); a sub-agent's session, the prompt and tool output
 * never count. OpenCode prints no closing line: every `step_finish` that ends the agent's
 * work (any reason but `tool-calls`) reports the steps since the last report as a `result`,
 * and so does an `error`. `elapsedMs` supplies the duration OpenCode does not report.
 */
export function createOpenCodeTranslator(
  options: { cwd?: string; elapsedMs?: () => number } = {},
): StreamTranslator {
  let session: string | null = null;
  let lastText = '';
  let lastTextMessage: string | null = null;
  let steps = 0;
  let reported = 0;
  let pending = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 };
  let agentError: string | null = null;
  let fatal: string | null = null;
  let limit: AgentLimit | null = null;

  const ours = (part: { sessionID?: string | null | undefined }): boolean =>
    session === null || !part.sessionID || part.sessionID === session;

  const report = (isError: boolean): AgentEvent => {
    const { cost, ...tokens } = pending;
    pending = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 };
    reported = steps;
    return {
      type: 'result',
      turns: steps,
      tokens,
      costUsd: cost,
      durationMs: options.elapsedMs?.() ?? 0,
      isError,
      text: lastText,
    };
  };

  const onText = (line: z.infer<typeof TextLine>): AgentEvent[] => {
    const { part } = line;
    if (!ours(part) || part.synthetic === true) return [];
    const id = part.messageID ?? null;
    lastText = id !== null && id === lastTextMessage ? `${lastText}\n${part.text}` : part.text;
    lastTextMessage = id;
    return part.text.trim() === '' ? [] : [{ type: 'message', text: part.text }];
  };

  const onTool = (line: z.infer<typeof ToolLine>): AgentEvent[] => {
    const { part } = line;
    if (!ours(part)) return [];
    const summary = summarizeToolInput(part.state.input ?? {}, options.cwd);
    return [{ type: 'tool', name: part.tool, summary }];
  };

  const onStepFinish = (line: z.infer<typeof StepFinishLine>): AgentEvent[] => {
    const { part } = line;
    if (!ours(part)) return [];
    steps += 1;
    const t = part.tokens;
    pending = {
      input: pending.input + (t?.input ?? 0),
      // Reasoning tokens are billed as output, as Claude and Codex count them.
      output: pending.output + (t?.output ?? 0) + (t?.reasoning ?? 0),
      cacheRead: pending.cacheRead + (t?.cache?.read ?? 0),
      cacheWrite: pending.cacheWrite + (t?.cache?.write ?? 0),
      cost: pending.cost + (part.cost ?? 0),
    };
    // A step that called tools is followed by another; only the last one closes the account.
    return part.reason === 'tool-calls' ? [] : [report(false)];
  };

  const onError = (line: z.infer<typeof ErrorLine>): AgentEvent[] => {
    const data = line.error.data;
    const name = line.error.name ?? 'error';
    const status = data?.statusCode ?? null;
    const message = data?.message || name;
    // OpenCode compacts the conversation and carries on by itself: not the end of the attempt.
    if (name === CONTEXT_OVERFLOW) {
      return [
        { type: 'notice', text: `OpenCode compacts its conversation: ${oneLine(message, 200)}` },
      ];
    }
    const what = status === null ? name : `API ${status}`;
    agentError = `OpenCode reported an error (${what}): ${oneLine(message, 300)}`;
    const events: AgentEvent[] = steps > reported || reported === 0 ? [report(true)] : [];
    const body = data?.responseBody ?? '';
    if (status === 401 || name === 'ProviderAuthError' || AUTH_FAILURE.test(`${message} ${body}`)) {
      if (!fatal) {
        fatal = `${OPENCODE_AUTH_MESSAGE} (${oneLine(message, 200)})`;
        events.push({ type: 'error', message: fatal, fatal: true });
      }
      return events;
    }
    limit = openCodeLimit({
      statusCode: status,
      message,
      headers: lowerCaseKeys(data?.responseHeaders ?? {}),
      body,
      at: line.timestamp ?? null,
    });
    // A limit is waited out, not an error of the agent's: its words are shown as a notice.
    events.push(
      limit
        ? { type: 'notice', text: `OpenCode stopped: ${oneLine(message, 200)}` }
        : { type: 'error', message: agentError, fatal: false },
    );
    return events;
  };

  return {
    push(text, truncated) {
      if (truncated) return [];
      const json = parseJsonLine(text);
      const type = lineType(json);
      if (typeof type !== 'string') return [];
      // The first line names the agent's own session; a sub-agent's (the task tool) is another.
      if (session === null) {
        const owner = SessionOf.safeParse(json);
        if (owner.success) session = owner.data.sessionID;
      }
      if (type === 'text') return parsedOrUnknown(TextLine.safeParse(json), type, onText);
      if (type === 'tool_use') return parsedOrUnknown(ToolLine.safeParse(json), type, onTool);
      if (type === 'step_finish') {
        return parsedOrUnknown(StepFinishLine.safeParse(json), type, onStepFinish);
      }
      if (type === 'error') return parsedOrUnknown(ErrorLine.safeParse(json), type, onError);
      if (IGNORED.has(type)) return [];
      return [{ type: 'unknown', what: type }];
    },
    finish(): TranslatedOutcome {
      return { finalAnswer: lastText, agentError, fatal, limit: fatal ? null : limit };
    },
  };
}

/** A known line whose shape changed (a newer OpenCode) is reported, not silently dropped. */
function parsedOrUnknown<T>(
  parsed: { success: true; data: T } | { success: false },
  type: string,
  handle: (value: T) => AgentEvent[],
): AgentEvent[] {
  return parsed.success ? ifParsed(parsed, handle) : [{ type: 'unknown', what: type }];
}

function lowerCaseKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}
