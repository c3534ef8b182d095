import type { RunEvent, FailureKind, RunOutcome, TimedRunEvent } from '../../core/events.js';
import { emptySummary, summarize, type RunSummary } from '../../core/run-summary.js';
import { readEvent, type LineTone } from '../../format/event-reading.js';
import { oneLine } from '../../format/text.js';
import { waitingAfter, type LimitWaitView } from './limit-wait-view.js';
import {
  appendLines,
  emptyTranscript,
  type Transcript,
  type TranscriptLine,
} from './transcript.js';

/**
 * The loop screen's model, folded from the run's events. Per-story figures come
 * from core's `summarize`; this adds what only a live view needs: attempts with
 * their reasons, transcripts, errors and the end of the run. Pure.
 */
export type AttemptStatus = 'running' | 'failed' | 'accepted' | 'stopped';

export interface AttemptView {
  attempt: number;
  status: AttemptStatus;
  kind: FailureKind | null;
  reason: string | null;
  turns: number | null;
  costUsd: number;
  durationMs: number | null;
}

export interface StoryDetail {
  attempts: AttemptView[];
  transcript: Transcript;
}

export interface RunError {
  message: string;
  fatal: boolean;
  at: number;
}

export interface LoopView {
  change: string;
  summary: RunSummary;
  details: Record<string, StoryDetail>;
  started: {
    at: number;
    branch: string;
    originalBranch: string;
    baseSha: string;
    agent: string;
    maxRetries: number;
  } | null;
  currentStoryId: string | null;
  exhausted: { storyId: string; attempts: number; reason: string } | null;
  errors: RunError[];
  awaiting: { outcome: RunOutcome; at: number } | null;
  /** A usage-limit wait going on (its end, epoch ms): the loop screen counts it down. */
  waiting: LimitWaitView | null;
  finished: (Omit<Extract<RunEvent, { type: 'run.finished' }>, 'type'> & { at: number }) | null;
  /** The budget or time limit that ended the run (`limit.reached`), for the completion screen. */
  limitReached?: { limit: Extract<RunEvent, { type: 'limit.reached' }>['limit']; message: string };
  /** The last review's rejection (`review.finished`), for the completion screen; null: approved. */
  review?: { reasons: string } | null;
}

/**
 * The transcript line each tone of the shared reading makes. An attempt's edits of other stories
 * are drawn as a failure (✗) here, where the stream marks them ⚠.
 */
const TRANSCRIPT_KIND: Record<LineTone, TranscriptLine['kind']> = {
  text: 'text',
  tool: 'tool',
  result: 'result',
  failure: 'failure',
  warning: 'failure',
  notice: 'note',
  note: 'note',
  success: 'note',
};

/** Errors kept in the view; older ones are counted, not stored. */
export const MAX_ERRORS = 50;

export function initialLoopView(change: string): LoopView {
  return {
    change,
    summary: emptySummary,
    details: {},
    started: null,
    currentStoryId: null,
    exhausted: null,
    errors: [],
    awaiting: null,
    waiting: null,
    finished: null,
  };
}

/** Applies a batch of events; transcripts are appended once per story per batch. */
export function applyEvents(
  view: LoopView,
  events: readonly TimedRunEvent[],
  maxTranscriptLines: number,
): LoopView {
  const pending = new Map<string, TranscriptLine[]>();
  let next = view;
  for (const event of events) {
    next = applyEvent(next, event, (storyId, lines) => {
      const list = pending.get(storyId) ?? [];
      list.push(...lines);
      pending.set(storyId, list);
    });
  }
  if (pending.size === 0) return next;
  const details = { ...next.details };
  for (const [storyId, lines] of pending) {
    const detail = details[storyId] ?? emptyDetail();
    details[storyId] = {
      ...detail,
      transcript: appendLines(detail.transcript, lines, maxTranscriptLines),
    };
  }
  return { ...next, details };
}

function applyEvent(
  view: LoopView,
  event: TimedRunEvent,
  write: (storyId: string, lines: TranscriptLine[]) => void,
): LoopView {
  const at = Date.parse(event.ts);
  const next = {
    ...view,
    summary: summarize(view.summary, event, at),
    waiting: waitingAfter(view.waiting, event, at),
  };
  // A revert of an attempt still running is the user's stop, not a failure's.
  const stopped =
    event.type === 'checkpoint.reverted' &&
    attemptOf(view, event.storyId, event.attempt)?.status === 'running';
  // What the event says under its story is the shared reading's; the switch keeps the state.
  const reading = readEvent(event, {
    agent: view.started?.agent ?? '',
    summary: next.summary,
    now: at,
    stopped,
  });
  if (reading.storyId !== null && reading.lines.length > 0) {
    write(
      reading.storyId,
      reading.lines.map((line) => ({ kind: TRANSCRIPT_KIND[line.tone], text: line.text })),
    );
  }
  switch (event.type) {
    case 'run.started':
      return {
        ...next,
        change: oneLine(event.change),
        summary: {
          ...next.summary,
          stories: next.summary.stories.map((s) => ({ ...s, title: oneLine(s.title) })),
        },
        started: {
          at,
          branch: oneLine(event.branch),
          originalBranch: oneLine(event.originalBranch),
          baseSha: event.baseSha,
          agent: oneLine(event.agent),
          maxRetries: event.maxRetries,
        },
      };
    case 'story.started': {
      const max = view.started ? view.started.maxRetries + 1 : null;
      write(event.storyId, [
        {
          kind: 'attempt',
          // With fallback agents, which agent runs the attempt.
          text: `attempt ${event.attempt}${max === null ? '' : ` of ${max}`}${next.summary.withFallbacks && event.agent !== undefined ? ` · ${oneLine(event.agent)}` : ''}`,
        },
      ]);
      const attempt: AttemptView = {
        attempt: event.attempt,
        status: 'running',
        kind: null,
        reason: null,
        turns: null,
        costUsd: 0,
        durationMs: null,
      };
      return withDetail({ ...next, currentStoryId: event.storyId }, event.storyId, (d) => ({
        ...d,
        attempts: [...d.attempts.filter((a) => a.attempt !== event.attempt), attempt],
      }));
    }
    case 'agent.result':
      return updateAttempt(next, event.storyId, event.attempt, (a) => ({
        ...a,
        turns: event.turns,
        costUsd: a.costUsd + (event.costUsd ?? 0),
        durationMs: event.durationMs,
      }));
    case 'attempt.failed':
      return updateAttempt(next, event.storyId, event.attempt, (a) => ({
        ...a,
        status: 'failed',
        kind: event.kind,
        reason: oneLine(event.reason),
      }));
    case 'checkpoint.reverted':
      return stopped
        ? updateAttempt(next, event.storyId, event.attempt, (a) => ({ ...a, status: 'stopped' }))
        : next;
    case 'story.completed':
      return updateAttempt(next, event.storyId, event.attempts, (a) => ({
        ...a,
        status: 'accepted',
      }));
    case 'story.exhausted':
      return {
        ...next,
        exhausted: {
          storyId: event.storyId,
          attempts: event.attempts,
          reason: oneLine(event.reason),
        },
      };
    case 'error': {
      const errors = [...view.errors, { message: oneLine(event.message), fatal: event.fatal, at }];
      return { ...next, errors: errors.slice(-MAX_ERRORS) };
    }
    case 'run.awaiting-choice':
      return { ...next, awaiting: { outcome: event.outcome, at } };
    case 'run.finished':
      return {
        ...next,
        finished: {
          outcome: event.outcome,
          choice: event.choice,
          branch: oneLine(event.branch),
          originalBranch: oneLine(event.originalBranch),
          storiesCompleted: event.storiesCompleted,
          storiesTotal: event.storiesTotal,
          costUsd: event.costUsd,
          durationMs: event.durationMs,
          ...(event.question ? { question: event.question } : {}),
          at,
        },
      };
    case 'claim.lost': {
      const message = `the claim on ${oneLine(event.remote)} was taken over by ${oneLine(event.holder)}`;
      const errors = [...view.errors, { message, fatal: true, at }];
      return { ...next, errors: errors.slice(-MAX_ERRORS) };
    }
    case 'remote.push-failed': {
      const message = `push to ${oneLine(event.remote)} failed (${event.failures} in a row): ${oneLine(event.message)}`;
      const errors = [...view.errors, { message, fatal: false, at }];
      return { ...next, errors: errors.slice(-MAX_ERRORS) };
    }
    case 'limit.reached':
      return { ...next, limitReached: { limit: event.limit, message: oneLine(event.message) } };
    case 'review.finished':
      // The completion screen says why a run the reviewer never approved is not complete.
      return event.verdict === 'approved'
        ? { ...next, review: null }
        : { ...next, review: { reasons: oneLine(event.reasons ?? '') } };
    default:
      // Nothing to keep beyond its lines (`run.forced` is said on stderr and in the NDJSON).
      return next;
  }
}

function emptyDetail(): StoryDetail {
  return { attempts: [], transcript: emptyTranscript };
}

function withDetail(
  view: LoopView,
  storyId: string,
  change: (detail: StoryDetail) => StoryDetail,
): LoopView {
  return {
    ...view,
    details: { ...view.details, [storyId]: change(view.details[storyId] ?? emptyDetail()) },
  };
}

function updateAttempt(
  view: LoopView,
  storyId: string,
  attempt: number,
  change: (a: AttemptView) => AttemptView,
): LoopView {
  if (!attemptOf(view, storyId, attempt)) return view;
  return withDetail(view, storyId, (d) => ({
    ...d,
    attempts: d.attempts.map((a) => (a.attempt === attempt ? change(a) : a)),
  }));
}

function attemptOf(view: LoopView, storyId: string, attempt: number): AttemptView | undefined {
  return view.details[storyId]?.attempts.find((a) => a.attempt === attempt);
}
