// Types of soak-world.mjs (plain JS, shared with bench/soak.mjs) for the TypeScript test.
import type { SoakCliRun, SoakReport, SoakWorld } from './soak-check.mjs';

export type { SoakCliRun, SoakReport, SoakWorld };

export declare const SOAK_CHANGE: string;
export declare const SOAK_AGENT: string;
export declare const IGNORED_FILES: readonly string[];

export interface SoakRunOptions {
  /** The built CLI (`dist/cli/main.js`). */
  cli: string;
  seed: number | string;
  maxRetries?: number;
  /** `--agent-timeout`, e.g. `2s`. */
  agentTimeout?: string;
  onComplete?: 'keep' | 'cleanup';
  /** Kill ralphtool after this long (reported as a problem). */
  timeoutMs?: number;
  /** Also the opt-in HOSTILE_BEHAVIOURS. */
  hostile?: boolean;
}

/** A repository with the change and the user's files of every kind. */
export declare function makeSoakWorld(options?: {
  stories?: number;
  tasksPerStory?: number;
}): SoakWorld;

export declare function removeSoakWorld(world: SoakWorld): void;

/** `ralphtool run <change> --json` with the seeded random agent. */
export declare function runSoakCli(world: SoakWorld, options: SoakRunOptions): Promise<SoakCliRun>;

/** World, run, check; the world is removed unless kept. */
export declare function soakOnce(
  options: SoakRunOptions & {
    stories?: number;
    tasksPerStory?: number;
    keep?: boolean;
    keepFailed?: boolean;
  },
): Promise<
  SoakReport & {
    durationMs: number;
    stderr: string;
    world: SoakWorld | null;
    run: SoakCliRun;
  }
>;
