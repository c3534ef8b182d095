import { closeSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { errnoCode } from '../core/error-details.js';

/**
 * A git sequence (accept, revert, …) is an ordered list of named steps, each safe to run again
 * (docs/git-protocol.md, "Sequences as journals"). The planner of each sequence (plans.ts) decides
 * the list — fast paths are its inputs, not flags threaded through — and `runSteps` executes it,
 * writing to the run folder's journal the name of each step once it is done (with what later
 * steps need of it). After a crash the state's `step` says which sequence was half-way; the
 * journal says how far it got: done steps are skipped, their data read back, and the steps not
 * recorded are told they may have run before (`again`).
 *
 * The journal is appended, not fsynced: it survives a crash of the process (the page cache
 * outlives it), which is the failure the sequences are made for. Where a power loss left it
 * behind git, a step runs again, which each step allows; a step whose data is read back checks
 * it against git before trusting it. Its file stays open for the sequence and is written with
 * plain synchronous writes: a line is a few microseconds of the main thread, where a round trip
 * through the thread pool per step (open, write, close) cost a story milliseconds.
 */

/** One line of the journal: a step of one sequence done, and what it left for the next ones. */
interface JournalLine {
  sequence: string;
  step: string;
  data?: unknown;
}

/** Told of each step as it ends, before (`ran`) and after (`recorded`) the journal says so. */
export type StepObserver = (sequence: string, step: string, when: 'ran' | 'recorded') => void;

/** What the journal holds of one sequence: its steps done and their data. */
export class Journal {
  private constructor(
    private readonly file: string,
    readonly sequence: string,
    private readonly done: Map<string, unknown>,
    /** True when this sequence was entered before (it is being resumed). */
    readonly resumed: boolean,
    private fd: number | null,
  ) {}

  /**
   * The journal of `sequence`. A new sequence (`resumed` false) starts an empty journal; a
   * resumed one reads the steps the journal holds for it (lines of another sequence are an
   * earlier one's, ended before this began).
   */
  static async open(file: string, sequence: string, resumed: boolean): Promise<Journal> {
    const done = new Map<string, unknown>();
    if (resumed) {
      for (const line of await readLines(file)) {
        if (line.sequence === sequence) done.set(line.step, line.data);
      }
    }
    // The agent may have deleted the run folder; a new sequence starts the file empty.
    mkdirSync(dirname(file), { recursive: true });
    const fd = openSync(file, resumed ? 'a' : 'w', 0o600);
    return new Journal(file, sequence, done, resumed, fd);
  }

  isDone(step: string): boolean {
    return this.done.has(step);
  }

  /** What a done step left for the next ones (undefined when it left nothing or is not done). */
  dataOf(step: string): unknown {
    return this.done.get(step);
  }

  record(step: string, data: unknown): void {
    const line: JournalLine =
      data === undefined
        ? { sequence: this.sequence, step }
        : { sequence: this.sequence, step, data };
    this.done.set(step, data);
    if (this.fd !== null) writeSync(this.fd, `${JSON.stringify(line)}\n`);
  }

  /** A step failed: the file is let go, its lines kept for the sequence's resume. */
  release(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  /** The sequence ended (its end is in the state): its journal is no longer needed. */
  close(): void {
    this.release();
    rmSync(this.file, { force: true });
  }
}

/** How a step runs: `again` when it may have run before (any step of a resumed sequence not recorded done). */
export type StepRunner<Name extends string> = (
  name: Name,
  again: boolean,
) => Promise<StepOutcome | undefined>;

/** What a step may answer: data for later steps (kept in the journal). */
export interface StepOutcome {
  data?: unknown;
}

/**
 * Runs the planned steps in order, skipping those the journal holds, recording each as done.
 * A step that throws stops the sequence where it is; running it again continues there.
 */
export async function runSteps<Name extends string>(
  journal: Journal,
  plan: readonly Name[],
  run: StepRunner<Name>,
  observe?: StepObserver,
): Promise<void> {
  try {
    for (const name of plan) {
      if (journal.isDone(name)) continue;
      // In a resumed sequence any step not recorded may have run: the crash may have come after
      // it ran and before its line was written, and a power loss can take the journal's tail.
      const outcome = await run(name, journal.resumed);
      observe?.(journal.sequence, name, 'ran');
      journal.record(name, outcome?.data);
      observe?.(journal.sequence, name, 'recorded');
    }
  } catch (error) {
    journal.release();
    throw error;
  }
}

async function readLines(file: string): Promise<JournalLine[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return [];
    throw error;
  }
  const lines: JournalLine[] = [];
  for (const raw of text.split('\n')) {
    // A line cut by a crash mid-append, or junk: that step is not known done.
    try {
      const parsed: unknown = JSON.parse(raw);
      if (isJournalLine(parsed)) lines.push(parsed);
    } catch {
      continue;
    }
  }
  return lines;
}

function isJournalLine(value: unknown): value is JournalLine {
  return (
    typeof value === 'object' &&
    value !== null &&
    'sequence' in value &&
    typeof value.sequence === 'string' &&
    'step' in value &&
    typeof value.step === 'string'
  );
}
