import type { RunEvent } from '../core/events.js';
import type { RunSummary } from '../core/run-summary.js';
import { sandboxBlockedText } from '../core/sandbox-blocks.js';
import { describeTasksEdits } from '../core/tasks-edits.js';
import { flakyLine, testsChangedLine } from '../core/tests-weakened.js';
import { baselineNote, toleratedNotes } from '../core/verify-ratchet.js';
import { clockTime } from './clock.js';
import { oneLine, textLines } from './text.js';
import { formatCost, formatDuration, formatTokens, formatTurns, plural } from './units.js';

/**
 * The one reading of the loop's events that both presenters share (the progress lines of `run`,
 * cli/render/progress.ts, and the UI's loop view, ui/state/loop-view.ts): which story an event
 * belongs to, what kind of line it makes and its words, so that each event is worded here once.
 * What a presenter keeps of its own is its state: headings, the summary table, what was said
 * already, the attempts and errors the UI remembers. Pure.
 */

/**
 * What a line is: the progress lines colour it and put a mark before it by this, the UI picks
 * the kind of its transcript line.
 */
export type LineTone =
  | 'text' // the agent's own words
  | 'tool' // a tool the agent called
  | 'result' // the agent's figures at the end of an attempt
  | 'failure' // the attempt failed
  | 'warning' // the attempt did what it should not (edited other stories)
  | 'notice' // worth the user's eye: a limit, a question, an unknown agent output
  | 'note' // ralphtool's own bookkeeping: checkpoints, reverts, waits over
  | 'success'; // the story is done

/** How far a line may be cut where lines are cut to a terminal's width. */
export type LineCut =
  | 'line' // to the terminal's line: it carries outside text
  | 'long' // said nearly whole (1000 columns): its end says what to do
  | 'never'; // ralphtool's own short words (figures, refs): never cut

export interface EventLine {
  tone: LineTone;
  /** The words in the story's own transcript (the UI), where the story goes without saying. */
  text: string;
  /**
   * The words in the run's one stream of lines (`run`'s progress), where the stories follow
   * each other and so are named; undefined: the same as `text`; null: not said there.
   */
  stream?: string | null;
  cut: LineCut;
}

export interface EventReading {
  /** The story the lines are said under; null for the run's own (the verify baseline). */
  storyId: string | null;
  /** Empty for an event whose presenters say it from their own state, or not at all. */
  lines: EventLine[];
}

/** What only the presenter knows when it reads an event. */
export interface ReadingContext {
  /** The run's agent (`run.started`), whose turns a result counts. */
  agent: string;
  /** The run's figures with the event folded in (core/run-summary.ts). */
  summary: RunSummary;
  /** The moment the event is read (epoch ms): the end of a wait is told by this clock. */
  now: number;
  /** How line breaks in outside text are shown once it is on one line (default a space). */
  joiner?: string;
  /** `checkpoint.reverted`: its attempt was still running, so the user stopped it. */
  stopped?: boolean;
}

/** Reads one event; every kind of event is read here (the `never` check below says so). */
export function readEvent(event: RunEvent, context: ReadingContext): EventReading {
  const one = (text: string): string => oneLine(text, context.joiner);
  switch (event.type) {
    case 'agent.message':
      // The transcript keeps every line; the stream shows the first as a sign of life.
      return under(
        event,
        textLines(event.text).map((text, i) => ({
          tone: 'text',
          text,
          stream: i === 0 ? text.trim() : null,
          cut: 'line',
        })),
      );
    case 'agent.tool':
      return under(event, [
        { tone: 'tool', text: `${one(event.name)} ${one(event.summary)}`.trim(), cut: 'line' },
      ]);
    case 'agent.notice':
      // Why the agent is silent (Claude Code retrying the API): said, never judged.
      return under(event, [{ tone: 'notice', text: `⟳ ${one(event.text)}`, cut: 'line' }]);
    case 'sandbox.blocked':
      // `--sandbox` refused the agent something: said, never judged (the attempt is judged as
      // ever, by what it did and what the verify commands say).
      return under(event, [
        {
          tone: 'notice',
          text: `⛔ ${one(sandboxBlockedText(event.blocked))}`,
          stream: `⛔ Story ${event.storyId}, attempt ${String(event.attempt)}: ${one(sandboxBlockedText(event.blocked))}`,
          cut: 'long',
        },
      ]);
    case 'agent.unrecognised':
      // Once per kind a run: the agent is newer than ralphtool; the hint says what to do.
      return under(event, [
        {
          tone: 'notice',
          text: `⚠ unknown agent output (${one(event.what)}): ${one(event.hint)}`,
          cut: 'long',
        },
      ]);
    case 'agent.result':
      return under(event, [resultLine(event, context.agent)]);
    case 'attempt.failed':
      return under(event, [
        {
          tone: 'failure',
          text: `attempt ${event.attempt} failed (${event.kind}): ${one(event.reason)}`,
          // An agent's error (e.g. not logged in) is said whole: its end says what to do.
          cut: event.kind === 'agent-error' ? 'long' : 'line',
        },
        ...tolerated(event.verify, one),
      ]);
    case 'tasks.out-of-scope': {
      const what = `attempt ${event.attempt} edited other stories in tasks.md: ${describeTasksEdits(event.edits)}`;
      const undone =
        event.savedRef === null
          ? ''
          : `; undone in the checkpoint (its tasks.md is saved as ${event.savedRef})`;
      return under(event, [{ tone: 'warning', text: one(`${what}${undone}`), cut: 'line' }]);
    }
    case 'checkpoint.reverted': {
      const sha = event.toSha.slice(0, 8);
      const stopped = context.stopped === true ? 'stopped; ' : '';
      return under(event, [
        {
          tone: 'note',
          text: `↺ ${stopped}work reverted to ${sha} (saved as ${one(event.savedRef)})`,
          stream: `↺ reverted to ${sha}; attempt saved as ${event.savedRef}`,
          cut: 'never',
        },
      ]);
    }
    case 'checkpoint.created':
      return under(event, [
        { tone: 'note', text: `● checkpoint ${event.sha.slice(0, 8)}`, cut: 'never' },
      ]);
    case 'story.completed': {
      const cost = storyCost(context.summary, event.storyId, event.costUsd);
      return under(event, [
        {
          tone: 'success',
          text: `✓ story done after ${plural(event.attempts, 'attempt')}`,
          stream: `✓ Story ${event.storyId} done · ${plural(event.attempts, 'attempt')} · ${cost} · ${formatDuration(event.durationMs)}`,
          cut: 'never',
        },
        ...tolerated(event.verify, one),
      ]);
    }
    case 'agent.limited':
      return under(event, [limitedLine(event, context.now, one)]);
    case 'agent.switched':
      return under(event, [switchedLine(event, context.now, one)]);
    case 'limit.resumed':
      return under(event, [
        {
          tone: 'note',
          text: `▶ waited ${formatDuration(event.waitedMs)}`,
          stream: `▶ the wait is over (${formatDuration(event.waitedMs)}): trying story ${event.storyId} again`,
          cut: 'never',
        },
      ]);
    case 'story.blocked':
      return under(event, [
        {
          tone: 'notice',
          text: `? ${one(event.question)}`,
          stream: `? Story ${event.storyId} asks: ${one(event.question)}`,
          cut: 'line',
        },
      ]);
    case 'tests.changed':
      // The gate let a change to the tests through (a task asked for it, or the flag): said.
      return under(event, [
        { tone: 'notice', text: `⚠ ${one(testsChangedLine(event))}`, cut: 'line' },
      ]);
    case 'verify.flaky':
      return under(event, [
        { tone: 'notice', text: `⟳ ${one(flakyLine(event.command))}`, cut: 'line' },
      ]);
    case 'verify.baseline':
      // Before the first story: the run's own lines, which only the stream shows.
      return {
        storyId: null,
        lines: event.results.map((r) => ({
          tone: r.passed ? 'note' : 'notice',
          text: one(baselineNote(r)),
          cut: 'line',
        })),
      };
    case 'review.started':
      return {
        storyId: null,
        lines: [
          {
            tone: 'notice',
            text: `⚖ independent review, round ${event.round} of ${event.maxRounds}, by ${one(event.reviewer)}${event.reviewer === 'command' ? '' : ' (read-only)'}`,
            cut: 'line',
          },
        ],
      };
    case 'review.finished':
      return { storyId: null, lines: reviewLines(event, one) };
    case 'resolve.started':
      return under(event, [
        {
          tone: 'notice',
          text: `⇆ collides with your work tree in ${one(event.files.join(', '))}: this story brings the branch onto it (--resolve-conflicts)`,
          stream: `⇆ the work collides with your work tree in ${one(event.files.join(', '))}: story ${event.storyId} (${one(event.title)}) brings the branch onto it (--resolve-conflicts)`,
          cut: 'line',
        },
      ]);
    case 'resolve.dropped':
      return under(event, [
        {
          tone: 'warning',
          text: `✗ not brought onto your work tree: ${one(event.reason)}; the branch is back where it was`,
          stream: `✗ story ${event.storyId} did not bring the branch onto your work tree (${one(event.reason)}): the branch is back where it was, the work kept on it`,
          cut: 'line',
        },
      ]);
    // Said by each presenter from its own state (a heading, the summary, the list of errors,
    // the completion screen), or not at all: nothing is said under a story.
    case 'run.started':
    case 'story.started':
    case 'story.exhausted':
    case 'error':
    case 'run.awaiting-choice':
    case 'run.forced':
    case 'run.finished':
    case 'claim.taken':
    case 'claim.lost':
    case 'remote.pushed':
    case 'remote.push-failed':
    case 'limit.reached':
      return { storyId: 'storyId' in event ? event.storyId : null, lines: [] };
    default:
      return unread(event);
  }
}

/**
 * The reviewer's verdict: each scenario met (with its evidence) or not (with why), those it said
 * nothing of, the files it changed and that were reverted, then the verdict with its reasons.
 */
function reviewLines(
  event: Extract<RunEvent, { type: 'review.finished' }>,
  one: (text: string) => string,
): EventLine[] {
  const lines: EventLine[] = event.scenarios.map((s) => {
    const name = one(`${s.requirement} / ${s.scenario}`);
    const note = s.note === '' ? '' : `: ${one(s.note)}`;
    if (s.met === true) return { tone: 'note', text: `✓ met: ${name}${note}`, cut: 'line' };
    if (s.met === false) return { tone: 'failure', text: `✗ not met: ${name}${note}`, cut: 'line' };
    return { tone: 'notice', text: `? not judged: ${name}`, cut: 'line' };
  });
  if (event.revertedRef !== null) {
    lines.push({
      tone: 'warning',
      text: `⚠ the reviewer changed files: reverted (saved under ${event.revertedRef})`,
      cut: 'long',
    });
  }
  const figures = `${formatCost(event.costUsd)} · ${formatDuration(event.durationMs)}`;
  lines.push(
    event.verdict === 'approved'
      ? { tone: 'success', text: `✓ the review approved the change (${figures})`, cut: 'long' }
      : {
          tone: 'failure',
          text: `✗ the review rejected the change (${figures}): ${one(event.reasons ?? '')}`,
          cut: 'long',
        },
  );
  return lines;
}

/** A kind of event added to core/events.ts and not read above fails to compile here. */
function unread(event: never): never {
  throw new Error(`an event no reading knows: ${JSON.stringify(event)}`);
}

function under(event: { storyId: string }, lines: EventLine[]): EventReading {
  return { storyId: event.storyId, lines };
}

/** The agent's figures; the transcript adds the attempt's time, the stream says it per story. */
function resultLine(event: Extract<RunEvent, { type: 'agent.result' }>, agent: string): EventLine {
  const t = event.tokens;
  const figures = `${formatTurns(event.turns, agent)} · ${t.input + t.cacheRead + t.cacheWrite} in / ${t.output} out tokens · ${formatCost(event.costUsd)}`;
  return {
    tone: 'result',
    text: `${figures} · ${formatDuration(event.durationMs)}${event.isError ? ' · agent reported an error' : ''}`,
    stream: `${figures}${event.isError ? ' · error' : ''}`,
    cut: 'never',
  };
}

/** A tolerated verify failure (the ratchet) is a short note, not a failure. */
function tolerated(
  results: Parameters<typeof toleratedNotes>[0],
  one: (text: string) => string,
): EventLine[] {
  return toleratedNotes(results).map((note) => ({ tone: 'notice', text: one(note), cut: 'line' }));
}

/** A story's cost, or its tokens and "—" when its agent reports no cost. */
function storyCost(summary: RunSummary, storyId: string, costUsd: number | null): string {
  const story = summary.stories.find((st) => st.id === storyId);
  if (story === undefined || story.costKnown) return formatCost(costUsd);
  return story.tokens > 0 ? `${formatTokens(story.tokens)} · cost —` : 'cost —';
}

/**
 * A usage-limit wait: the UI counts it down on its own, so its transcript says what and how
 * long; the stream says how long and until when first (a long vendor message may be cut):
 * `⏸ waiting 1h12m, until 15:02: usage limit (exit 75): <message>; the attempt does not count`.
 */
function limitedLine(
  event: Extract<RunEvent, { type: 'agent.limited' }>,
  now: number,
  one: (text: string) => string,
): EventLine {
  const what = `${event.kind} limit (${one(event.source)}): ${one(event.message)}`;
  const until = clockTime(now + event.waitMs, now);
  return {
    tone: 'notice',
    text: `⏸ ${what} · waiting ${formatDuration(event.waitMs)}`,
    stream: `⏸ waiting ${formatDuration(event.waitMs)}, until ${until}: ${what}; the attempt does not count`,
    cut: 'line',
  };
}

/**
 * An agent switch (docs/contract.md, "Fallback agents"): `⇄ claude is at its usage limit until
 * 15:02: story 1 goes on with codex at once; the attempt does not count`, or, its limit over,
 * `⇄ claude's limit is over: story 2 goes back to claude`; the end in the user's local time.
 */
function switchedLine(
  event: Extract<RunEvent, { type: 'agent.switched' }>,
  now: number,
  one: (text: string) => string,
): EventLine {
  const [from, to] = [one(event.from), one(event.to)];
  const model = event.model === null ? '' : ` (model ${one(event.model)})`;
  if (event.reason === 'reset') {
    return {
      tone: 'notice',
      text: `⇄ ${to}'s limit is over: back to ${to}`,
      stream: `⇄ ${to}'s limit is over: story ${event.storyId} goes back to ${to}${model}`,
      cut: 'line',
    };
  }
  const limit = `${event.kind === null ? 'a' : `its ${event.kind}`} limit`;
  const until = event.until === null ? '' : ` until ${clockTime(Date.parse(event.until), now)}`;
  return {
    tone: 'notice',
    text: `⇄ ${from} is at ${limit}${until}: going on with ${to} at once`,
    stream: `⇄ ${from} is at ${limit}${until}: story ${event.storyId} goes on with ${to}${model} at once; the attempt does not count`,
    cut: 'line',
  };
}
