import type { AgentEvent } from './types.js';

/** One line of a vendor's NDJSON; anything unparseable is undefined, never an exception. */
export function parseJsonLine(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The `type` field of a parsed line, when it has one. */
export function lineType(json: unknown): unknown {
  return typeof json === 'object' && json !== null ? (json as { type?: unknown }).type : undefined;
}

/** Runs a handler on a line that passed its schema; a line that did not is skipped. */
export function ifParsed<T>(
  parsed: { success: true; data: T } | { success: false },
  handle: (value: T) => AgentEvent[],
): AgentEvent[] {
  return parsed.success ? handle(parsed.data) : [];
}

/**
 * A JSON object line's kind as the stream names it: `type`, or `type/subtype` when it has a
 * subtype; null for a line that is not a JSON object. What an `unknown` event calls it.
 */
export function lineKind(json: unknown): string | null {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return null;
  const { type, subtype } = json as { type?: unknown; subtype?: unknown };
  if (typeof type !== 'string') return '(no type)';
  return typeof subtype === 'string' ? `${type}/${subtype}` : type;
}
