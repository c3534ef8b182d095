import { UsageError } from '../core/errors.js';
import { splitCommandLine } from '../process/command-line.js';

/** Parses `90s`, `15m`, `2h` or plain seconds into milliseconds; `0` means no limit. */
export function parseDuration(text: string, flag: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/i.exec(text);
  if (!match) {
    throw new UsageError(`${flag}: "${text}" is not a duration: use e.g. 90s, 15m, 2h or seconds`);
  }
  const value = Number(match[1]);
  const unit = (match[2] ?? 's').toLowerCase();
  const factor = unit === 'ms' ? 1 : unit === 's' ? 1000 : unit === 'm' ? 60_000 : 3_600_000;
  const ms = Math.round(value * factor);
  if (ms > MAX_TIMER_MS) {
    throw new UsageError(`${flag}: "${text}" is too long: the most is 596h`);
  }
  return ms;
}

/** Node's timers fire at once for anything longer (2^31 - 1 ms, about 596 hours). */
const MAX_TIMER_MS = 2_147_483_647;

/** Parses a non-negative integer flag value. */
export function parseCount(text: string, flag: string): number {
  if (!/^\s*\d+\s*$/.test(text)) {
    throw new UsageError(`${flag}: "${text}" is not a whole number >= 0`);
  }
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new UsageError(`${flag}: "${text}" is too large`);
  return value;
}

/** Parses `--command-timeout` (seconds or a duration), which must be above zero. */
export function parsePositiveDuration(text: string, flag: string): number {
  const ms = parseDuration(text, flag);
  if (ms <= 0) throw new UsageError(`${flag}: must be greater than 0`);
  return ms;
}

export function parseChoice<T extends string>(
  text: string,
  allowed: readonly T[],
  flag: string,
): T {
  if ((allowed as readonly string[]).includes(text)) return text as T;
  throw new UsageError(`${flag}: "${text}" is not one of ${allowed.join(', ')}`);
}

/** A flag's parsed value, or the default when the flag was not given. */
export function parsedOr<T>(
  value: string | undefined,
  flag: string,
  parse: (text: string, flag: string) => T,
  fallback: T,
): T {
  return value === undefined ? fallback : parse(value, flag);
}

/** A command line (`--verify`, `--notify`, `--agent-command`): it must name a program. */
export function parseCommandLine(text: string, flag: string): string {
  if (splitCommandLine(text, flag).length === 0)
    throw new UsageError(`${flag}: the command is empty`);
  return text;
}

/** A name (`--model`, `--fallback-model`): not blank. */
/** A folder's path (made absolute where the settings are read, `withSettings`). */
export function parseFolder(text: string, flag: string): string {
  if (text.trim() === '') throw new UsageError(`${flag}: empty path: name a folder`);
  return text;
}

export function parseName(text: string, flag: string): string {
  if (text.trim() === '') throw new UsageError(`${flag}: empty name`);
  return text;
}
