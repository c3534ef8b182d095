import type { VerifyResult } from './events.js';

/**
 * The verify ratchet (docs/contract.md, "The verify ratchet"): what the run knows of one
 * `--verify` command. `passedOnce` is the ratchet itself: once the command has passed on a
 * checkpoint (at a baseline or on an accepted attempt), a failure is a regression and blocks.
 * Until then its failures are reported but tolerated: it failed before the run did anything.
 */
export interface RatchetEntry {
  command: string;
  /** Its result at the last baseline (the checkpoint before this invocation's first attempt). */
  baselinePassed: boolean;
  /** It has passed on a checkpoint of this run. */
  passedOnce: boolean;
}

/** One command's result as the gate ran it. */
export interface VerifyOutcome {
  command: string;
  passed: boolean;
  /** It failed, then passed when run again (docs/contract.md, "Tests the agent may not weaken"). */
  flaky?: boolean;
}

/**
 * The ratchet after a baseline: each command's new baseline result; what passed once stays so
 * (a resume keeps it), and a baseline pass counts as a pass. Commands not run now are kept.
 */
export function afterBaseline(
  recorded: readonly RatchetEntry[] | undefined,
  results: readonly VerifyOutcome[],
): RatchetEntry[] {
  const entries = new Map((recorded ?? []).map((e) => [e.command, e]));
  for (const r of results) {
    const before = entries.get(r.command);
    entries.set(r.command, {
      command: r.command,
      baselinePassed: r.passed,
      passedOnce: r.passed || (before?.passedOnce ?? false),
    });
  }
  return [...entries.values()];
}

/**
 * Whether a failure of `command` blocks the attempt: always with `--verify-strict` or without a
 * ratchet (no baseline ran), and for a command the run knows nothing of; otherwise once it has
 * passed.
 */
export function blocks(
  ratchet: readonly RatchetEntry[] | null,
  command: string,
  strict: boolean,
): boolean {
  if (strict || ratchet === null) return true;
  const entry = ratchet.find((e) => e.command === command);
  return entry === undefined || entry.passedOnce;
}

/** The results as events report them: a failure that does not block is `tolerated`. */
export function withTolerance(
  outcomes: readonly VerifyOutcome[],
  isBlocking: (command: string) => boolean,
): VerifyResult[] {
  return outcomes.map((o) =>
    o.passed || isBlocking(o.command)
      ? { command: o.command, passed: o.passed, ...(o.flaky === true ? { flaky: true } : {}) }
      : { command: o.command, passed: false, tolerated: true },
  );
}

/**
 * The ratchet after an accepted attempt: its tree is the new checkpoint, so every command that
 * passed on it has passed once and blocks from now on. Null when there is no ratchet.
 */
export function afterAccepted(
  ratchet: readonly RatchetEntry[] | null,
  results: readonly VerifyResult[],
): RatchetEntry[] | null {
  if (ratchet === null) return null;
  const passed = new Set(results.filter((r) => r.passed).map((r) => r.command));
  return ratchet.map((e) => (passed.has(e.command) ? { ...e, passedOnce: true } : e));
}

/** The commands whose failures are tolerated now, in `commands`' order (for the prompt). */
export function toleratedCommands(
  ratchet: readonly RatchetEntry[] | null,
  commands: readonly string[],
  strict: boolean,
): string[] {
  if (strict || ratchet === null) return [];
  return commands.filter((c) => ratchet.some((e) => e.command === c) && !blocks(ratchet, c, false));
}

/** One short line per tolerated failure, for the progress lines and the UI. */
export function toleratedNotes(results: readonly VerifyResult[] | undefined): string[] {
  return (results ?? [])
    .filter((r) => r.tolerated === true)
    .map((r) => `${r.command} still fails as before the run: not blocking`);
}

/** One line per command of the baseline. */
export function baselineNote(result: VerifyResult): string {
  return result.passed
    ? `verify baseline: ${result.command} passes`
    : `verify baseline: ${result.command} fails before the run: not blocking until it passes once`;
}
