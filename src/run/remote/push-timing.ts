import { readFile } from 'node:fs/promises';
import type { RunEventType } from '../../core/events.js';
import { parseRunState, type RunState } from '../../checkpoint/index.js';

// When a run that pushes pushes (remote-sync.ts; docs/git-protocol.md, "Pushes"): after which
// events, which of them wait for the next step, the gap between two pushes, the backoff after
// a failure, and the wait for a quiet state to record.

/** The events after which the remote gets the run's refs and record. */
export const PUSHED_AFTER: ReadonlySet<RunEventType> = new Set<RunEventType>([
  'run.started',
  'story.started',
  'checkpoint.created',
  'checkpoint.reverted',
  'story.blocked',
  'story.exhausted',
  'limit.reached',
  'agent.limited',
  'run.finished',
]);

/**
 * The events whose push waits for the next step: the attempt that starts next (or the run's end,
 * a question, a wait) is pushed with it in one push, so a story costs one push, not two. When
 * no such step comes within `CARRY_MS` the push goes alone.
 */
export const CARRIED: ReadonlySet<RunEventType> = new Set<RunEventType>([
  'checkpoint.created',
  'checkpoint.reverted',
]);

/** How long a carried push waits for the next step before it goes alone. */
export const CARRY_MS = 2_000;

/**
 * The least time from one push's start to the next one's (but the run's end, which goes at
 * once): steps made meanwhile wait and go together, so a run whose stories take less than this
 * pushes every few stories, not after each; one whose stories take minutes, after each.
 */
export const PUSH_GAP_MS = 2_000;

/** Pauses after failed pushes: doubling from the first, never longer than the last. */
export const PUSH_BACKOFF = { firstMs: 2_000, maxMs: 5 * 60_000 } as const;

/**
 * Reads the run state, waiting (briefly) while it records a git sequence half-way: a record
 * pushed then would name a checkpoint the branch has already left, or one it has not reached
 * yet. Returns the text read (the record holds exactly it) and what it says.
 */
export async function readQuietState(
  stateFile: string,
  settleMs: number,
): Promise<{ text: string; state: RunState } | null> {
  const until = Date.now() + settleMs;
  for (;;) {
    const text = await readFile(stateFile, 'utf8').catch(() => null);
    if (text === null) return null;
    const state = parseRunState(text, stateFile);
    if (state.step === null || Date.now() >= until) return { text, state };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
