import { resumeCommand, type BudgetLimit } from '../../core/budget.js';
import type { RunEvent } from '../../core/events.js';
import { exhaustedMessage } from '../../core/loop.js';
import { blockedLine, blockedNext } from '../../core/question.js';
import { ON_PATH, reachable, type Reach } from '../../core/reach.js';
import { emptySummary, knownCost, summarize, type RunSummary } from '../../core/run-summary.js';
import type { Style } from '../../format/style.js';
import { table } from '../../format/table.js';
import { remoteLines } from './remote-lines.js';
import { agentColumn, agentTag, forcedLine } from './limit-lines.js';
import {
  readEvent,
  type EventLine,
  type EventReading,
  type LineTone,
} from '../../format/event-reading.js';
import { clean, clip, oneLine } from '../../format/text.js';
import { costColumn, formatDuration, formatTokens, progressBar } from '../../format/units.js';

const MAX_LINE = 160;
/** Lines whose end says what to do (an agent's error, an unknown output's hint). */
const MAX_LONG_LINE = 1000;

/** How each tone of the shared reading shows in the stream: its colour and its mark. */
const STREAM_TONE: Record<LineTone, { paint: 'dim' | 'yellow' | 'red' | 'green'; mark: string }> = {
  text: { paint: 'dim', mark: '│ ' },
  tool: { paint: 'dim', mark: '· ' },
  result: { paint: 'dim', mark: '= ' },
  failure: { paint: 'red', mark: '✗ ' },
  warning: { paint: 'yellow', mark: '⚠ ' },
  notice: { paint: 'yellow', mark: '' },
  note: { paint: 'dim', mark: '' },
  success: { paint: 'green', mark: '' },
};

/**
 * The plain (non-JSON) output of `run`: one readable line per event that matters,
 * and a summary table at the end. Stateful only through the pure summary reducer.
 */
export class ProgressPrinter {
  private summary: RunSummary = emptySummary;
  private maxAttempts = 1;
  /** Why the run stopped when it was not the user (a claim lost); null: the user stopped it. */
  private stoppedBecause: string | null = null;
  private agent = '';
  /**
   * What was last printed in full, so that the events that repeat one failure (the agent's
   * error, the attempt's failure, the exhausted story, the run's fatal error) refer to it
   * instead of printing it again.
   */
  private said: SaidAlready = { warning: null, failure: null, exhausted: null };
  /** The budget a `budget` outcome ran out of, for the resume command that raises it. */
  private budgetLimit: BudgetLimit | null = null;

  constructor(
    private readonly write: (text: string) => void,
    private readonly style: Style,
    /** How the closing advice names ralphtool (`npx ralphtool resume …` when that is the way). */
    private readonly reach: Reach = ON_PATH,
    private readonly shown: {
      /** The clock a wait's end is shown by (local time). */
      now?: () => number;
      /**
       * Lines under a story are cut to a terminal's line (MAX_LINE columns); into a file or a
       * pipe (a CI log) they are written whole, still on one line and made safe.
       */
      cut?: boolean;
    } = {},
  ) {}

  private get cutLines(): boolean {
    return this.shown.cut ?? true;
  }

  private now(): number {
    return (this.shown.now ?? Date.now)();
  }

  /** A line under its story: indented, on one line, made safe, cut to `max` on a terminal. */
  private detail(text: string, max = MAX_LINE): string {
    const line = oneLine(text, ' | ');
    return `  ${this.cutLines ? clip(line, max - 2) : line}`;
  }

  handle(event: RunEvent): void {
    this.summary = summarize(this.summary, event);
    const lines = this.linesFor(event);
    if (lines.length > 0) this.write(`${lines.join('\n')}\n`);
  }

  private linesFor(event: RunEvent): string[] {
    const s = this.style;
    switch (event.type) {
      case 'run.started': {
        this.maxAttempts = event.maxRetries + 1;
        this.agent = event.agent;
        const todo = event.stories.filter((st) => !st.done).length;
        return [
          `${s.bold('ralphtool')} ${event.change}: ${event.stories.length} stories, ${todo} to do · agent ${event.agent} · branch ${event.branch} (from ${event.originalBranch})`,
          ...(event.worktree === undefined ? [] : [`  in the worktree ${event.worktree}`]),
        ];
      }
      case 'story.started':
        this.said = { warning: null, failure: null, exhausted: null };
        return [
          '',
          `${progressBar(event.completed, event.total)} ${s.bold(`[${event.index}/${event.total}] Story ${event.storyId}: ${oneLine(event.title)}`)}${agentTag(this.summary, event)}${event.attempt > 1 ? s.yellow(` (attempt ${event.attempt}/${this.maxAttempts})`) : ''}`,
        ];
      case 'attempt.failed':
        return this.failedLines(event);
      case 'story.exhausted': {
        // Its reason is the last attempt's failure, printed just above; the `error` event that
        // follows says it all once more.
        this.said.exhausted = exhaustedMessage(event.storyId, event.attempts, event.reason);
        const last = this.said.failure;
        const repeats = last !== null && event.reason.endsWith(last.reason);
        return [
          s.red(
            repeats
              ? `  ✗ Story ${event.storyId} used all ${event.attempts} attempts (the last failure is above)`
              : this.detail(
                  `✗ Story ${event.storyId} used all ${event.attempts} attempts: ${event.reason}`,
                ),
          ),
        ];
      }
      case 'error':
        return this.errorLines(event);
      case 'run.forced':
        return [s.dim(forcedLine(event))];
      case 'run.finished':
        return this.finishedLines(event);
      case 'claim.lost':
        // The run stops for it: its end says so, not "stopped by the user".
        this.stoppedBecause = `stopped: the claim was taken over by ${oneLine(event.holder)}`;
        return remoteLines(event, s, this.cutLines ? MAX_LINE : Number.POSITIVE_INFINITY);
      case 'claim.taken':
      case 'remote.pushed':
      case 'remote.push-failed':
        return remoteLines(event, s, this.cutLines ? MAX_LINE : Number.POSITIVE_INFINITY);
      case 'limit.reached':
        if (event.limit === 'max-cost' || event.limit === 'max-story-cost') {
          this.budgetLimit = event.limit;
        }
        return [s.yellow(`  ■ ${event.message}`)];
      default:
        // Said under its story in the words every presenter shares.
        return this.streamLines(this.read(event).lines);
    }
  }

  private read(event: RunEvent): EventReading {
    return readEvent(event, {
      agent: this.agent,
      summary: this.summary,
      now: this.now(),
      // A line break in outside text shows on the one line as ` | `.
      joiner: ' | ',
    });
  }

  /** A line of the shared reading as the stream shows it: indented, marked, cut on a terminal. */
  private streamLine(line: EventLine): string | null {
    const words = line.stream === undefined ? line.text : line.stream;
    if (words === null) return null;
    const text = `${STREAM_TONE[line.tone].mark}${words}`;
    if (line.cut === 'never') return `  ${text}`;
    return this.detail(text, line.cut === 'long' ? MAX_LONG_LINE : MAX_LINE);
  }

  private streamLines(lines: readonly EventLine[]): string[] {
    return lines.flatMap((line) => {
      const text = this.streamLine(line);
      return text === null ? [] : [this.style[STREAM_TONE[line.tone].paint](text)];
    });
  }

  /** A failure said once: one that repeats the warning just printed refers to it. */
  private failedLines(event: Extract<RunEvent, { type: 'attempt.failed' }>): string[] {
    const s = this.style;
    const [failure, ...notes] = this.read(event).lines;
    const shown = failure === undefined ? null : this.streamLine(failure);
    if (shown === null) return this.streamLines(notes);
    const repeats = this.said.warning !== null && this.said.warning === event.reason;
    this.said.failure = {
      attempt: event.attempt,
      reason: event.reason,
      whole: !repeats && !shown.endsWith('…'),
    };
    return [
      repeats
        ? s.red(`  ✗ attempt ${event.attempt} failed (${event.kind}): the error above`)
        : s.red(shown),
      ...this.streamLines(notes),
    ];
  }

  private errorLines(event: Extract<RunEvent, { type: 'error' }>): string[] {
    const s = this.style;
    if (!event.fatal && event.message === this.said.exhausted) return [];
    const last = this.said.failure;
    if (event.fatal && last !== null && last.whole && event.message === last.reason) {
      return [
        s.red(
          `error: attempt ${last.attempt}'s failure above ends the run (retrying cannot fix it)`,
        ),
      ];
    }
    if (!event.fatal) this.said.warning = event.message;
    // Error messages can quote what git or an agent printed: made safe like agent text.
    const message = reachable(clean(event.message), this.reach);
    return [s.red(`${event.fatal ? 'error' : 'warning'}: ${message}`)];
  }

  private finishedLines(event: Extract<RunEvent, { type: 'run.finished' }>): string[] {
    const s = this.style;
    // Rows and total from the same rounded numbers, so that the column adds up.
    const costs = costColumn(this.summary.stories.map(knownCost));
    // With fallback agents, which agents ran each story (docs/contract.md, "Fallback agents").
    const agents = agentColumn(this.summary);
    // Flaky verify runs (failed, then passed when run again): a column only when there were any.
    const flaky = this.summary.stories.some((st) => st.flakes > 0);
    const rows = this.summary.stories.map((st, i) => [
      st.id,
      clip(oneLine(st.title), 40),
      String(st.attempts),
      ...agents.cells(st),
      st.result,
      ...(flaky ? [st.flakes === 0 ? '' : String(st.flakes)] : []),
      costs.cells[i] ?? '—',
      formatDuration(st.durationMs),
    ]);
    const total = this.summary.costKnown
      ? costs.total
      : `${this.summary.tokens > 0 ? `${formatTokens(this.summary.tokens)} · ` : ''}cost —`;
    const header = [
      'STORY',
      'TITLE',
      'ATTEMPTS',
      ...agents.header,
      'RESULT',
      ...(flaky ? ['FLAKY'] : []),
      'COST',
      'TIME',
    ].map(s.bold);
    const where =
      event.choice === 'cleanup'
        ? event.home !== undefined
          ? `cleanup: the work is in ${event.home} as uncommitted changes (on ${event.originalBranch})`
          : `cleanup: back on ${event.originalBranch}, the work is left as uncommitted changes`
        : event.choice === 'keep' && event.outcome !== 'complete'
          ? `keep: on ${event.branch}, one commit per story; the run stays resumable: \`${resumeCommand(this.summary.change, event.outcome, this.budgetLimit)}\` (or end it: \`ralphtool finish ${this.summary.change} --cleanup|--keep\`)`
          : event.choice === 'keep'
            ? `keep: on ${event.branch}, one commit per story (original branch: ${event.originalBranch})`
            : event.outcome === 'error'
              ? `the run stays on ${event.branch} at its last checkpoint: fix the cause, then \`ralphtool resume ${this.summary.change}\` (or end it: \`ralphtool finish ${this.summary.change} --cleanup|--keep\`)`
              : event.outcome === 'complete'
                ? `no choice was made: the run stays on ${event.branch} at its last checkpoint; end it with \`ralphtool finish ${this.summary.change} --cleanup\` or \`--keep\``
                : `no choice was made: the run stays on ${event.branch} at its last checkpoint; carry on with \`${resumeCommand(this.summary.change, event.outcome, this.budgetLimit)}\`, or end it with \`ralphtool finish ${this.summary.change} --cleanup\` or \`--keep\``;
    // A run in a worktree of its own says where that worktree is, or that it is gone.
    const wt = event.worktree;
    const worktree =
      wt === undefined
        ? ''
        : wt.removed
          ? `; the worktree ${wt.root} is removed${event.outcome !== 'complete' && event.choice === 'keep' ? ' (resume recreates it)' : ''}`
          : `; the run's worktree is ${wt.root}`;
    // A question parks the run: what it asks and the exact command that answers it.
    const next =
      event.question === undefined
        ? `${where}${worktree}`
        : `${blockedLine(event.question.storyId, oneLine(event.question.text))}; the run stays on ${event.branch} at its last checkpoint: ${blockedNext(this.summary.change)}`;
    const verdict: Record<typeof event.outcome, string> = {
      complete: s.green('all stories complete'),
      'max-retries': s.red('stopped: a story used up its retries'),
      stopped: s.yellow(this.stoppedBecause ?? 'stopped by the user'),
      error: s.red('stopped by an error'),
      blocked: s.yellow('blocked: a question waits for your answer'),
      limited: s.yellow('stopped at a usage limit'),
      budget: s.yellow('stopped: the budget is spent'),
      'time-limit': s.yellow('stopped: --max-duration reached'),
      'not-approved': s.red('not approved: the independent review rejected the change'),
    };
    return [
      '',
      ...table([header, ...rows]),
      '',
      `${verdict[event.outcome]} · ${event.storiesCompleted}/${event.storiesTotal} stories · ${total} · ${formatDuration(event.durationMs)}`,
      reachable(next, this.reach),
    ];
  }
}

interface SaidAlready {
  /** The last non-fatal error of this attempt. */
  warning: string | null;
  /** The last attempt failure; `whole` when its line showed the reason uncut. */
  failure: { attempt: number; reason: string; whole: boolean } | null;
  /** The warning that will repeat the exhausted story. */
  exhausted: string | null;
}
