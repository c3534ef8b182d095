import { z } from 'zod';
import { geminiLimit } from './gemini-limits.js';
import { ifParsed, lineType, parseJsonLine } from './json-line.js';
import { oneLine, summarizeToolInput } from './tool-summary.js';
import type { AgentEvent, AgentLimit, StreamTranslator, TranslatedOutcome } from './types.js';

// Only the fields ralphtool reads of `gemini --output-format stream-json` (Gemini CLI 0.61).
const count = z.number().nullish();
const MessageLine = z.object({
  type: z.literal('message'),
  role: z.string(),
  content: z.string(),
});
const ToolUseLine = z.object({
  type: z.literal('tool_use'),
  tool_name: z.string(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
});
const ErrorLine = z.object({
  type: z.literal('error'),
  severity: z.string().nullish(),
  message: z.string(),
});
const ResultLine = z.object({
  type: z.literal('result'),
  status: z.string(),
  error: z.object({ type: z.string().nullish(), message: z.string().nullish() }).nullish(),
  stats: z
    .object({
      input_tokens: count,
      output_tokens: count,
      cached: count,
      input: count,
      duration_ms: count,
    })
    .nullish(),
});

/** The line types Gemini CLI 0.61 writes; any other is a newer version's, reported once. */
const KNOWN_TYPES = new Set(['init', 'message', 'tool_use', 'tool_result', 'error', 'result']);

/** Gemini's API refusing the key, in an error `result`: 401, 403, `API_KEY_INVALID` (a 400). */
const AUTH_FAILURE =
  /"code":\s*40[13]\b|UNAUTHENTICATED|PERMISSION_DENIED|API_KEY_INVALID|API key not valid|API key expired/i;
/** Gemini CLI's exit code for "no usable authentication" (`FATAL_AUTHENTICATION_ERROR`). */
const EXIT_AUTH = 41;
/** `FATAL_CONFIG_ERROR`: its settings forbid what ralphtool asks (e.g. YOLO mode disabled). */
const EXIT_CONFIG = 52;

export const GEMINI_AUTH_MESSAGE =
  'Gemini CLI is not logged in or its API key was refused: set GEMINI_API_KEY, or run `gemini` once and sign in.';

/**
 * Reads `gemini -p "" --output-format stream-json`. The model's text arrives in `message` deltas
 * (role `assistant`); the final answer is the text of its last turn, after its last tool call.
 * The `message` with role `user` is the prompt echoed back and never counts. Reading stops at
 * the first `result`. `now` is the clock that turns "retry in 43s" into a reset time.
 */
export function createGeminiTranslator(
  options: { cwd?: string; now?: () => number } = {},
): StreamTranslator {
  // The current turn's text, one delta after another, until a tool call or the end closes it;
  // `unshown` is the part of it not yet given out as a `message` event.
  let turnText = '';
  let unshown = '';
  let turns = 0;
  let inTurn = false;
  let ended = false;
  let agentError: string | null = null;
  let fatal: string | null = null;
  let limit: AgentLimit | null = null;

  /** The turn's text so far as one `message` event (deltas are too small to show one by one). */
  const flushText = (): AgentEvent[] => {
    const text = unshown;
    unshown = '';
    return text.trim() === '' ? [] : [{ type: 'message', text }];
  };
  const startTurn = (): void => {
    if (inTurn) return;
    inTurn = true;
    turns += 1;
  };

  const authFailure = (detail: string): AgentEvent[] => {
    if (fatal) return [];
    fatal = `${GEMINI_AUTH_MESSAGE} (${oneLine(detail, 200)})`;
    return [{ type: 'error', message: fatal, fatal: true }];
  };

  const onMessage = (line: z.infer<typeof MessageLine>): AgentEvent[] => {
    if (line.role !== 'assistant') return [];
    startTurn();
    turnText += line.content;
    unshown += line.content;
    return [];
  };

  const onToolUse = (line: z.infer<typeof ToolUseLine>): AgentEvent[] => {
    startTurn();
    // Text before a tool call is the model thinking aloud, not its answer.
    const events = flushText();
    turnText = '';
    const summary = summarizeToolInput(line.parameters ?? {}, options.cwd);
    return [...events, { type: 'tool', name: line.tool_name, summary }];
  };

  const onToolResult = (): AgentEvent[] => {
    // The results go back to the model: whatever it writes next is a new turn.
    inTurn = false;
    return [];
  };

  const onError = (line: z.infer<typeof ErrorLine>): AgentEvent[] => [
    ...flushText(),
    { type: 'error', message: `Gemini CLI: ${oneLine(line.message, 500)}`, fatal: false },
  ];

  const onResult = (line: z.infer<typeof ResultLine>): AgentEvent[] => {
    ended = true;
    const isError = line.status === 'error';
    const stats = line.stats;
    const inputTokens = stats?.input_tokens ?? 0;
    const cached = stats?.cached ?? 0;
    const events: AgentEvent[] = [
      ...flushText(),
      {
        type: 'result',
        turns,
        // `input_tokens` counts cached tokens too; `input` is the rest (as Claude counts them).
        tokens: {
          input: stats?.input ?? Math.max(0, inputTokens - cached),
          output: stats?.output_tokens ?? 0,
          cacheRead: cached,
          cacheWrite: 0,
        },
        // Gemini CLI reports tokens only: its cost is unknown, not zero.
        costUsd: null,
        durationMs: stats?.duration_ms ?? 0,
        isError,
        text: turnText,
      },
    ];
    if (!isError) return events;
    const detail = line.error?.message || line.error?.type || 'unknown error';
    agentError = `Gemini CLI reported an error: ${oneLine(detail, 1000)}`;
    if (AUTH_FAILURE.test(detail)) return [...events, ...authFailure(detail)];
    limit = geminiLimit(detail, (options.now ?? Date.now)());
    // A limit is waited out, not an error of the agent's: its words are shown as a notice.
    events.push(
      limit
        ? { type: 'notice', text: `Gemini CLI stopped: ${oneLine(detail, 300)}` }
        : { type: 'error', message: agentError, fatal: false },
    );
    return events;
  };

  return {
    push(text, truncated) {
      if (ended || truncated) return [];
      const json = parseJsonLine(text);
      const type = lineType(json);
      if (type === 'message') return ifParsed(MessageLine.safeParse(json), onMessage);
      if (type === 'tool_use') return ifParsed(ToolUseLine.safeParse(json), onToolUse);
      if (type === 'tool_result') return onToolResult();
      if (type === 'error') return ifParsed(ErrorLine.safeParse(json), onError);
      if (type === 'result') return ifParsed(ResultLine.safeParse(json), onResult);
      if (typeof type === 'string' && !KNOWN_TYPES.has(type))
        return [{ type: 'unknown', what: type }];
      return [];
    },
    finish(stderrTail, exitCode): TranslatedOutcome {
      // Without credentials Gemini CLI exits 41 before any output, saying why on stderr only.
      const said = lastLine(stderrTail);
      if (!ended && !fatal && exitCode === EXIT_AUTH) {
        fatal = `${GEMINI_AUTH_MESSAGE} (${oneLine(said || `exit ${EXIT_AUTH}`, 200)})`;
      } else if (!ended && !fatal && exitCode === EXIT_CONFIG) {
        fatal = `Gemini CLI refused its settings: ${oneLine(said || `exit ${EXIT_CONFIG}`, 300)} (fix ~/.gemini/settings.json)`;
      }
      return { finalAnswer: turnText, agentError, fatal, limit: fatal ? null : limit };
    },
  };
}

function lastLine(text: string): string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('Update your environment'));
  return lines.at(-1) ?? '';
}
