// Agent text is cut into lines by the events' shared reading (format/event-reading.ts); the
// helper lives beside it in format/text.ts and is still offered here, with the transcript.
export { textLines } from '../../format/text.js';

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
