import { Option } from 'commander';
import { UsageError } from '../core/errors.js';
import type { IntentKey } from '../core/run-intent.js';
import { AGENT_KINDS, REVIEW_DEFAULTS, type RunOptions } from '../run/options.js';
import { parseChoice, parseCommandLine, parseCount, parsedOr } from './options.js';

/** The review flags as commander hands them over (docs/contract.md, "The review"). */
export interface RawReviewFlags {
  review?: boolean;
  reviewAgent?: string;
  reviewCommand?: string;
  maxReviewRounds?: string;
}

/** `run`, `resume` and the UI: the independent review once every story is accepted. */
export function reviewOption(): Option {
  return new Option(
    '--review',
    "once every story is accepted, a fresh reviewer (the run's agent, read-only) judges the change against every scenario of its specs; rejected: a fix attempt, then a new review",
  );
}

export function reviewAgentOption(): Option {
  return new Option(
    '--review-agent <name>',
    'the reviewer is this agent, read-only: claude, codex, opencode or gemini (implies --review)',
  );
}

export function reviewCommandOption(): Option {
  return new Option(
    '--review-command <cmdline>',
    'the reviewer is this program, given the review prompt on stdin (implies --review)',
  );
}

export function maxReviewRoundsOption(): Option {
  return new Option(
    '--max-review-rounds <n>',
    'reviews before the run ends not approved (exit 6, resumable); 0 = no review (default: 2)',
  );
}

/** The review flags checked into the run's options. */
export function reviewOptions(
  flags: RawReviewFlags,
): Pick<RunOptions, 'review' | 'reviewCommand' | 'maxReviewRounds'> {
  if (flags.reviewAgent !== undefined && flags.reviewCommand !== undefined) {
    throw new UsageError('--review-agent and --review-command name two reviewers: give one');
  }
  let review: string | null = flags.review === true ? 'agent' : null;
  let reviewCommand: string | null = null;
  if (flags.reviewAgent !== undefined) {
    review = parseChoice(
      flags.reviewAgent,
      AGENT_KINDS.filter((kind) => kind !== 'command'),
      '--review-agent',
    );
  }
  if (flags.reviewCommand !== undefined) {
    parseCommandLine(flags.reviewCommand, '--review-command');
    review = 'command';
    reviewCommand = flags.reviewCommand;
  }
  const maxReviewRounds = parsedOr(
    flags.maxReviewRounds,
    '--max-review-rounds',
    parseCount,
    REVIEW_DEFAULTS.maxReviewRounds,
  );
  return { review, reviewCommand, maxReviewRounds };
}

/** The parts of the run's intent the review flags give (a resume keeps the recorded rest). */
export function reviewIntentGiven(flags: RawReviewFlags): [IntentKey, boolean][] {
  const reviewer = flags.review === true || flags.reviewAgent !== undefined;
  return [
    ['review', reviewer || flags.reviewCommand !== undefined],
    ['reviewCommand', reviewer || flags.reviewCommand !== undefined],
    ['maxReviewRounds', flags.maxReviewRounds !== undefined],
  ];
}
