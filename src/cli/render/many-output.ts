import type { CompletionChoice, RunEvent } from '../../core/events.js';
import { ON_PATH, type Reach } from '../../core/reach.js';
import type { Style } from '../../format/style.js';
import { oneLine } from '../../format/text.js';
import { formatCost } from '../../format/units.js';
import type { ManyRunResult, MergeReport } from '../../run/many/many-types.js';
import { timed, toNdjsonLine } from '../../run/ndjson.js';
import { renderMergeReport } from './merge-report.js';
import { ProgressPrinter } from './progress.js';

/** What the summary line of one run is made of, gathered from its events. */
interface RunFacts {
  outcome: string | null;
  done: number | null;
  total: number | null;
  costUsd: number | null;
  branch: string | null;
  worktree: string | null;
  /** The completion applied: the work came home (cleanup) or stayed on its branch (keep). */
  choice: CompletionChoice | null;
  /** Why a cleanup was turned into a keep: what the merge check found it collides with. */
  keptBy: string | null;
  /**
   * `--resolve-conflicts`: the files its agent was given to resolve (`resolve.started`), and why
   * it did not (`resolve.dropped`); null when there was nothing to resolve.
   */
  resolving: { files: string[]; dropped: string | null } | null;
}

/**
 * The headless output of several runs (docs/contract.md, "Several changes at once"): each
 * run's progress lines through a ProgressPrinter of its own, every line prefixed with
 * `[change]` (the runs' lines interleave, each stays whole); with --json every event line
 * carries `change`, and the merge check is one `merge.checked` line. Ends with a summary.
 */
export class ManyOutput {
  private readonly printers = new Map<string, ProgressPrinter>();
  private readonly facts = new Map<string, RunFacts>();
  private merge: MergeReport | null = null;

  constructor(
    private readonly write: (text: string) => void,
    private readonly style: Style,
    private readonly json: boolean,
    private readonly reach: Reach = ON_PATH,
    /** Cut lines under a story to a terminal's line (ProgressPrinter); whole into a file. */
    private readonly cut = true,
  ) {}

  event(change: string, event: RunEvent): void {
    this.note(change, event);
    if (this.json) {
      const line = JSON.parse(toNdjsonLine(timed(event))) as Record<string, unknown>;
      const { type, ts, ...rest } = line;
      this.write(`${JSON.stringify({ type, ts, change, ...rest })}\n`);
      return;
    }
    let printer = this.printers.get(change);
    if (!printer) {
      const prefix = this.style.cyan(`[${oneLine(change)}]`);
      printer = new ProgressPrinter(
        (text) => this.write(prefixLines(prefix, text)),
        this.style,
        this.reach,
        { cut: this.cut },
      );
      this.printers.set(change, printer);
    }
    printer.handle(event);
  }

  mergeChecked(report: MergeReport): void {
    this.merge = report;
    if (this.json) {
      const ts = new Date().toISOString();
      this.write(`${JSON.stringify({ type: 'merge.checked', ts, ...report })}\n`);
    }
  }

  /** The merge check as plain lines (shown before the completion questions). */
  mergeLines(): string[] {
    return this.merge === null ? [] : renderMergeReport(this.merge);
  }

  /** One line per change (outcome, stories, cost, branch or worktree), then the merge check. */
  summary(result: ManyRunResult): string[] {
    const lines = [this.style.bold('several runs:')];
    for (const run of result.runs) {
      const facts = this.facts.get(run.change);
      const name = oneLine(run.change);
      if (run.error !== null || !facts || facts.outcome === null) {
        const why = run.error ?? (run.exitCode === 0 ? 'nothing to do' : 'ended before its loop');
        lines.push(`  ${name}: ${oneLine(why)} (exit ${String(run.exitCode)})`);
        continue;
      }
      const stories =
        facts.done === null ? '' : ` · stories ${String(facts.done)}/${String(facts.total ?? 0)}`;
      lines.push(
        `  ${name}: ${facts.outcome}${stories} · ${formatCost(facts.costUsd)} · ${whereNow(facts)} (exit ${String(run.exitCode)})`,
      );
    }
    lines.push(...this.mergeLines().map((line) => `  ${line}`));
    return lines;
  }

  /** A cleanup turned into a keep by the merge check: said again in the summary. */
  keptBy(change: string, collidesWith: string): void {
    const facts = this.factsOf(change);
    facts.keptBy = collidesWith;
    this.facts.set(change, facts);
  }

  private factsOf(change: string): RunFacts {
    return (
      this.facts.get(change) ?? {
        outcome: null,
        done: null,
        total: null,
        costUsd: null,
        branch: null,
        worktree: null,
        choice: null,
        keptBy: null,
        resolving: null,
      }
    );
  }

  private note(change: string, event: RunEvent): void {
    const facts = this.factsOf(change);
    if (event.type === 'resolve.started') {
      facts.resolving = { files: event.files, dropped: null };
    } else if (event.type === 'resolve.dropped' && facts.resolving !== null) {
      facts.resolving = { ...facts.resolving, dropped: event.reason };
    } else if (event.type === 'run.started') {
      facts.branch = event.branch;
      facts.worktree = event.worktree ?? null;
    } else if (event.type === 'run.finished') {
      facts.outcome = event.outcome;
      facts.done = event.storiesCompleted;
      facts.total = event.storiesTotal;
      facts.costUsd = event.costUsd;
      facts.branch = event.branch;
      facts.choice = event.choice;
      if (event.worktree?.removed === true) facts.worktree = null;
    }
    this.facts.set(change, facts);
  }
}

/** Every line of `text` (ends with a newline) prefixed, so interleaved runs stay readable. */
function prefixLines(prefix: string, text: string): string {
  const body = text.endsWith('\n') ? text.slice(0, -1) : text;
  return `${body
    .split('\n')
    .map((line) => (line === '' ? prefix : `${prefix} ${line}`))
    .join('\n')}\n`;
}

/**
 * Where the run's work is now: brought home, kept on its branch (and why, when a cleanup was
 * turned into a keep), or — no choice applied, the run resumable — its worktree and branch.
 */
function whereNow(facts: RunFacts): string {
  const worktree =
    facts.worktree === null ? '' : ` (its worktree stays at ${oneLine(facts.worktree)})`;
  const resolved = facts.resolving === null ? '' : oneLine(facts.resolving.files.join(', '));
  if (facts.choice === 'cleanup') {
    const after = resolved === '' ? '' : ` after its agent resolved the conflicts (${resolved})`;
    return `came home into your work tree${after}${worktree}`;
  }
  if (facts.choice === 'keep') {
    const dropped = facts.resolving?.dropped ?? null;
    const why =
      dropped !== null
        ? `: collides with your work tree (${resolved}) and its agent did not resolve it: ${oneLine(dropped)}`
        : facts.keptBy === null
          ? ''
          : `: collides with ${oneLine(facts.keptBy)}`;
    return `kept on ${oneLine(facts.branch ?? 'its branch')}${why}${worktree}`;
  }
  const where = oneLine(facts.worktree ?? facts.branch ?? '');
  return facts.worktree !== null && facts.branch !== null ? `${where} (${facts.branch})` : where;
}
