import type { LimitKind, RunEvent, RunOutcome } from './events.js';

/**
 * What `--notify` / `--notify-url` tell people (docs/contract.md, "Notifications"): the events a
 * person who is not watching needs to know, and one human line for each, saying what happened
 * and what to do. Pure.
 */

/** The events that are delivered to `--notify` programs and `--notify-url` URLs. */
export const NOTIFIED_EVENT_TYPES = [
  'run.finished',
  'story.exhausted',
  'story.blocked',
  'agent.limited',
  'limit.resumed',
  'limit.reached',
] as const;
export type NotifiedEventType = (typeof NOTIFIED_EVENT_TYPES)[number];
export type NotifiedEvent = Extract<RunEvent, { type: NotifiedEventType }>;

const NOTIFIED: ReadonlySet<string> = new Set(NOTIFIED_EVENT_TYPES);

export function isNotified(event: RunEvent): event is NotifiedEvent {
  return NOTIFIED.has(event.type);
}

export interface NotifyContext {
  change: string;
  /** The question of the last `story.blocked`, for a `run.finished` that does not carry it. */
  question?: { storyId: string; text: string } | null;
}

/** Longest message: it goes into an environment variable and a phone's notification. */
const MAX_MESSAGE = 1_000;

/** One line saying what happened and what to do now. */
export function notifyMessage(event: NotifiedEvent, context: NotifyContext): string {
  return cut(messageOf(event, context), MAX_MESSAGE);
}

/**
 * The notification of a run that ended on an error no `run.finished` reports (git failed, the
 * state could not be written, a refused resume): said once, with where to look.
 */
export function fatalErrorMessage(change: string, message: string): string {
  return cut(
    `${change} stopped on an error: ${outside(message, 600)}; see \`ralphtool status\``,
    MAX_MESSAGE,
  );
}

function messageOf(event: NotifiedEvent, { change, question }: NotifyContext): string {
  switch (event.type) {
    case 'story.blocked':
      return `${change} is blocked: story ${event.storyId} asks: ${outside(event.question, 500)}; ${answerWith(change)}`;
    case 'story.exhausted':
      return `${change}: story ${event.storyId} failed ${event.attempts === 1 ? 'its only attempt' : `all ${event.attempts} attempts`} (${outside(event.reason, 300)}); the run stops at its last checkpoint: see \`ralphtool status\``;
    case 'agent.limited': {
      const until =
        event.resetsAt === null ? '' : ` (until ${clockTime(event.resetsAt)}, as the agent said)`;
      return `${change} is waiting ${humanDuration(event.waitMs)}${until}: ${LIMIT_WORDS[event.kind]} on story ${event.storyId}; it tries again by itself, nothing to do`;
    }
    case 'limit.resumed':
      return `${change}: the wait is over after ${humanDuration(event.waitedMs)}; story ${event.storyId} is tried again`;
    case 'limit.reached':
      return `${change}: ${outside(event.message, 400)}`;
    case 'run.finished':
      return finishedMessage(event, change, event.question ?? question ?? null);
  }
}

const LIMIT_WORDS: Record<LimitKind, string> = {
  usage: 'the usage limit was reached',
  rate: 'the rate limit was reached',
  overloaded: 'the API is overloaded',
  server: 'the API answered with a server error',
  connection: 'the API could not be reached',
};

const VERDICT: Record<RunOutcome, string> = {
  complete: 'is complete',
  'max-retries': 'stopped: a story used up its attempts',
  stopped: 'was stopped',
  error: 'stopped on an error retrying cannot fix',
  blocked: 'is blocked: a question waits for your answer',
  limited: 'stopped at a usage limit',
  budget: 'stopped at its budget',
  'time-limit': 'stopped at its --max-duration',
  'not-approved': 'was not approved by the independent review',
};

function finishedMessage(
  event: Extract<RunEvent, { type: 'run.finished' }>,
  change: string,
  question: { storyId: string; text: string } | null,
): string {
  const verdict =
    event.outcome === 'blocked' && question !== null
      ? `is blocked: story ${question.storyId} asks: ${outside(question.text, 500)}`
      : VERDICT[event.outcome];
  const figures = [
    `${event.storiesCompleted}/${event.storiesTotal} stories done`,
    ...(event.costUsd !== null && event.costUsd > 0 ? [`$${event.costUsd.toFixed(2)}`] : []),
    humanDuration(event.durationMs),
  ].join(', ');
  return `${change} ${verdict} (${figures}); ${nextStep(event, change)}`;
}

/** What the person does now, by the completion choice and the outcome. */
function nextStep(event: Extract<RunEvent, { type: 'run.finished' }>, change: string): string {
  if (event.choice === 'cleanup') {
    return `its work is on ${outside(event.originalBranch, 200)} as uncommitted changes`;
  }
  if (event.outcome === 'complete') {
    return `its work is on ${outside(event.branch, 200)}, one commit per story`;
  }
  switch (event.outcome) {
    case 'blocked':
      return answerWith(change);
    case 'error':
      return `fix the cause, then \`ralphtool resume ${change}\``;
    case 'budget':
      return `continue with a higher budget: \`ralphtool resume ${change} --max-cost <usd>\``;
    default:
      return `continue with \`ralphtool resume ${change}\` or end it with \`ralphtool finish ${change} --cleanup|--keep\``;
  }
}

function answerWith(change: string): string {
  return `answer with \`ralphtool resume ${change} --answer "…"\``;
}

/** "45s", "31m", "2h 5m": rounded as a person says it. */
export function humanDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes}m`;
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return m === 0 ? `${h}h` : `${h}h ${m}m`;
}

/** "15:02 UTC" from an ISO time; the text itself when it is no time. */
function clockTime(iso: string): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return outside(iso, 40);
  const hh = String(at.getUTCHours()).padStart(2, '0');
  const mm = String(at.getUTCMinutes()).padStart(2, '0');
  return `${hh}:${mm} UTC`;
}

/* eslint-disable no-control-regex -- removing control characters is the point */
const ESCAPE_SEQUENCE =
  /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|[@-Z\\-_])/g;
const CONTROL = /[\u0000-\u001f\u007f-\u009f]+/g;
/* eslint-enable no-control-regex */

/**
 * Text that came from outside (the agent's question, a failure's reason, a branch name) on one
 * line: escape sequences removed, line breaks and other control characters (NUL included, which
 * no environment variable may hold) as one space, then cut.
 */
function outside(text: string, max: number): string {
  const line = text.replace(ESCAPE_SEQUENCE, '').replace(CONTROL, ' ').replace(/\s+/g, ' ').trim();
  return cut(line, max);
}

function cut(text: string, max: number): string {
  const chars = [...text];
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : text;
}
