/** What the agent said at the end of its final answer (docs/contract.md, "Signals"). */
export type AgentSignal =
  | { kind: 'complete' }
  | { kind: 'failed'; reason: string }
  /** A question only a person can answer: the run parks until `resume --answer`. */
  | { kind: 'blocked'; question: string };

// Whitespace inside the tags is tolerated: `<promise> COMPLETE </promise>`, `< promise >`.
const SIGNAL =
  /<\s*promise\s*>\s*(COMPLETE|FAILED|BLOCKED)\s*(?::([\s\S]*?))?<\s*\/\s*promise\s*>/gi;

/** Longest failure reason kept; an agent can write a novel, the next prompt needs a summary. */
export const MAX_REASON_LENGTH = 2_000;

/**
 * Reads the signal from the agent's own final answer. When it holds several, the
 * last one counts. `FAILED` without a reason still fails, with a placeholder reason.
 */
export function parseSignal(finalAnswer: string): AgentSignal | null {
  let last: AgentSignal | null = null;
  for (const match of finalAnswer.matchAll(SIGNAL)) {
    const keyword = (match[1] ?? '').toUpperCase();
    if (keyword === 'COMPLETE') {
      if (match[2] === undefined) last = { kind: 'complete' };
      continue;
    }
    const reason = (match[2] ?? '').trim();
    if (keyword === 'BLOCKED') {
      // A question without text cannot be answered: not a signal.
      if (reason !== '') last = { kind: 'blocked', question: clip(reason) };
      continue;
    }
    last = { kind: 'failed', reason: clip(reason || 'no reason given') };
  }
  return last;
}

/** The text of the last complete signal in `text` (tags included), or null. */
export function lastSignalText(text: string): string | null {
  let last: string | null = null;
  for (const match of text.matchAll(SIGNAL)) last = match[0];
  return last;
}

function clip(text: string): string {
  return text.length > MAX_REASON_LENGTH ? `${text.slice(0, MAX_REASON_LENGTH)}…` : text;
}

/**
 * Removes from an answer the prompt's own signal instructions (the lines of "When you
 * are done", which start with "- `<promise>"), so that an agent that prints its prompt
 * back (`cat "$RALPHTOOL_PROMPT_FILE"`) does not signal by accident. Only those exact
 * instruction lines go: a bare `<promise>COMPLETE</promise>` of the agent always stays,
 * even when learnings or a failure reason quoted one.
 */
export function withoutEchoedPrompt(answer: string, prompt: string): string {
  const instructionLines = new Set(
    prompt
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => /^- `<\s*promise\s*>/i.test(line)),
  );
  if (instructionLines.size === 0) return answer;
  return answer
    .split('\n')
    .filter((line) => !instructionLines.has(line.trim()))
    .join('\n');
}
