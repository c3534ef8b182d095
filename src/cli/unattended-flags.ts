import { readFileSync } from 'node:fs';
import { messageOf } from '../core/error-details.js';
import { UsageError } from '../core/errors.js';
import {
  DEFAULT_RUN_OPTIONS,
  UNATTENDED_DEFAULTS,
  type OnLimit,
  type UnattendedOptions,
} from '../run/options.js';
import {
  parseChoice,
  parseCommandLine,
  parseDuration,
  parsedOr,
  parsePositiveDuration,
} from './options.js';
import type { RawRunFlags } from './run-flags.js';

// The flags of runs left alone (docs/contract.md, "Unattended runs"), validated apart from the
// loop's own so that each file stays about one thing.

export const ON_LIMIT: readonly OnLimit[] = ['wait', 'stop'];

/** The flags of unattended runs: limits, budgets, the verify ratchet, notifications, the answer. */
export function unattendedOptions(flags: RawRunFlags): Omit<UnattendedOptions, 'fallbacks'> {
  for (const notify of flags.notify ?? []) parseCommandLine(notify, '--notify');
  for (const url of flags.notifyUrl ?? []) parseNotifyUrl(url, '--notify-url');
  return {
    onLimit:
      flags.onLimit === undefined
        ? DEFAULT_RUN_OPTIONS.onLimit
        : parseChoice(flags.onLimit, ON_LIMIT, '--on-limit'),
    maxWaitMs: parsedOr(flags.maxWait, '--max-wait', parseDuration, DEFAULT_RUN_OPTIONS.maxWaitMs),
    pauseAt: parsedOr(flags.pauseAt, '--pause-at', parsePercent, null),
    maxCostUsd: parsedOr(flags.maxCost, '--max-cost', parseUsd, null),
    maxStoryCostUsd: parsedOr(flags.maxStoryCost, '--max-story-cost', parseUsd, null),
    maxDurationMs: parsedOr(flags.maxDuration, '--max-duration', parsePositiveDuration, null),
    verifyStrict: flags.verifyStrict === true,
    allowTestChanges: flags.allowTestChanges === true,
    notify: flags.notify ?? [],
    notifyUrls: flags.notifyUrl ?? [],
    notifyTimeoutMs: parsedOr(
      flags.notifyTimeout,
      '--notify-timeout',
      parsePositiveDuration,
      UNATTENDED_DEFAULTS.notifyTimeoutMs,
    ),
    answer: readAnswer(flags),
  };
}

/** A budget in US dollars: a number above zero (`5`, `2.50`, `$3`). */
export function parseUsd(text: string, flag: string): number {
  const match = /^\s*\$?\s*(\d+(?:\.\d+)?|\.\d+)\s*$/.exec(text);
  const value = match ? Number(match[1]) : Number.NaN;
  if (!Number.isFinite(value)) {
    throw new UsageError(`${flag}: "${text}" is not an amount in US dollars: use e.g. 5 or 2.50`);
  }
  if (value <= 0) throw new UsageError(`${flag}: must be greater than 0`);
  return value;
}

/** A percent of a usage window: a number from 1 to 100 (`80`, `92.5`, `80%`). */
export function parsePercent(text: string, flag: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*%?\s*$/.exec(text);
  const value = match ? Number(match[1]) : Number.NaN;
  if (!Number.isFinite(value) || value < 1 || value > 100) {
    throw new UsageError(`${flag}: "${text}" is not a percent from 1 to 100: use e.g. 80`);
  }
  return value;
}

/** The URL is never echoed: its path or user part may carry a token. */
export function parseNotifyUrl(text: string, flag: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`${flag}: not a URL: use e.g. https://ntfy.sh/my-topic`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(
      `${flag}: only http and https URLs are posted to (this one is ${url.protocol}): use e.g. https://ntfy.sh/my-topic`,
    );
  }
  return url;
}

/** `--answer` as given, or the text of `--answer-file`; a blank answer is a mistake. */
function readAnswer(flags: RawRunFlags): string | null {
  let answer: string | undefined = flags.answer;
  if (flags.answerFile !== undefined) {
    try {
      answer = readFileSync(flags.answerFile, 'utf8');
    } catch (error) {
      throw new UsageError(`--answer-file: cannot read ${flags.answerFile}: ${messageOf(error)}`);
    }
  }
  if (answer === undefined) return null;
  if (answer.trim() === '') throw new UsageError('--answer: the answer is empty');
  return answer.trim();
}
