/**
 * Every line type Claude Code 2.1.197 can print on stdout with `-p --output-format stream-json
 * --verbose` (read from the zod schemas of its SDK message union in the binary, and the types
 * seen when driving it: test/fixtures/claude-stream/, test/compat/). ralphtool reads only a few of
 * them (claude-translator.ts); the others are known and skipped on purpose. A type or subtype not
 * listed here is a newer Claude Code's: it is reported once (an `unknown` event), never fatal.
 */

/** Types that have no subtype ralphtool tells apart. */
const PLAIN_TYPES = [
  'assistant',
  'user',
  // Only with --include-partial-messages; listed so that it is never mistaken for a new type.
  'stream_event',
  'tool_progress',
  'tool_use_summary',
  'auth_status',
  'rate_limit_event',
  'prompt_suggestion',
  // The control protocol of --input-format stream-json, which ralphtool does not use.
  'control_request',
  'control_response',
  'control_cancel_request',
  'keep_alive',
] as const;

const SYSTEM_SUBTYPES = [
  'init',
  'api_retry',
  'compact_boundary',
  'status',
  'model_refusal_fallback',
  'model_refusal_no_fallback',
  'local_command_output',
  'hook_started',
  'hook_progress',
  'hook_response',
  'plugin_install',
  'task_notification',
  'task_started',
  'task_updated',
  'task_progress',
  'thinking_tokens',
  'session_state_changed',
  'worker_shutting_down',
  'commands_changed',
  'notification',
  'files_persisted',
  'memory_recall',
  'elicitation_complete',
  'permission_denied',
  'mirror_error',
  'informational',
] as const;

/** `success`, and the error subtypes (`error_max_budget_usd` is --max-budget-usd spent). */
const RESULT_SUBTYPES = [
  'success',
  'error_during_execution',
  'error_max_turns',
  'error_max_budget_usd',
  'error_max_structured_output_retries',
] as const;

const PLAIN: ReadonlySet<string> = new Set(PLAIN_TYPES);
const SUBTYPES: Readonly<Record<string, ReadonlySet<string>>> = {
  system: new Set(SYSTEM_SUBTYPES),
  result: new Set(RESULT_SUBTYPES),
};

/** The version of Claude Code the list above was taken from (and ralphtool is tested with). */
export const CLAUDE_KNOWN_VERSION = '2.1.197';

/**
 * The name of a stream line's kind (`type`, or `type/subtype` for `system` and `result`) when
 * Claude Code 2.1.197 does not print that kind; null when it does.
 */
export function unknownClaudeKind(type: string, subtype: unknown): string | null {
  if (PLAIN.has(type)) return null;
  const subtypes = SUBTYPES[type];
  if (subtypes === undefined) return type;
  if (typeof subtype !== 'string') return `${type}/(no subtype)`;
  return subtypes.has(subtype) ? null : `${type}/${subtype}`;
}
