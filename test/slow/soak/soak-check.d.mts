// Types of soak-check.mjs (plain JS, shared with bench/soak.mjs) for the TypeScript test.

/** A work-tree file as git records it: mode, object id and bytes. */
export interface SnapshotEntry {
  mode: string;
  oid: string;
  content: Buffer;
}

export interface SoakWorld {
  dir: string;
  scratch: string;
  /** Where the agent logs what each attempt did. */
  logDir: string;
  change: string;
  stories: number;
  tasksPerStory: number;
  /** `main` before the run. */
  mainSha: string;
  ignored: readonly string[];
  /** The work tree as the run found it. */
  before: Map<string, SnapshotEntry>;
}

export interface SoakEvent {
  type: string;
  [key: string]: unknown;
}

export interface SoakCliRun {
  seed: number | string;
  onComplete: 'keep' | 'cleanup';
  maxRetries: number;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  events: SoakEvent[];
  /** stdout lines that were not JSON. */
  badLines: string[];
  stderr: string;
  durationMs: number;
}

export interface SoakReport {
  seed: number | string;
  exitCode: number | null;
  outcome: string | null;
  storiesCompleted: number;
  storiesTotal: number;
  attempts: number;
  failedByKind: Record<string, number>;
  /** How often the agent drew each behaviour. */
  behaviours: Record<string, number>;
  /** Inconsistencies found, one readable line each; empty = consistent. */
  problems: string[];
}

/** Every invariant of a finished soak run, checked against the repository and the events. */
export declare function checkSoakRun(world: SoakWorld, run: SoakCliRun): SoakReport;
