import { clean } from '../../format/text.js';

/**
 * The agent transcript of one story as the view keeps it: at most `max` lines, the
 * oldest dropped first (the full transcript stays on disk). Pure.
 */
export type TranscriptLineKind = 'attempt' | 'text' | 'tool' | 'result' | 'failure' | 'note';

/** Never changed once made: the Agent tab remembers each line's rows by the object. */
export interface TranscriptLine {
  readonly kind: TranscriptLineKind;
  readonly text: string;
}

export interface Transcript {
  lines: TranscriptLine[];
  /** Lines dropped from the front to bound memory. */
  dropped: number;
}

export const emptyTranscript: Transcript = { lines: [], dropped: 0 };

export const DEFAULT_MAX_TRANSCRIPT_LINES = 2000;

/** Splits agent text into clean lines, without leading/trailing or repeated blank lines. */
export function textLines(text: string): string[] {
  const lines = clean(text)
    .split('\n')
    .map((l) => l.trimEnd());
  const out: string[] = [];
  for (const line of lines) {
    if (line === '' && (out.length === 0 || out[out.length - 1] === '')) continue;
    out.push(line);
  }
  while (out.length > 0 && out[out.length - 1] === '') out.pop();
  return out;
}

export function appendLines(
  transcript: Transcript,
  lines: readonly TranscriptLine[],
  max: number,
): Transcript {
  if (lines.length === 0) return transcript;
  const all = [...transcript.lines, ...lines];
  const excess = Math.max(0, all.length - Math.max(1, max));
  return { lines: excess > 0 ? all.slice(excess) : all, dropped: transcript.dropped + excess };
}
