import { AGENT_KINDS } from '../../run/options.js';
import {
  parseChoice,
  parseCommandLine,
  parseCount,
  parseDuration,
  parseFolder,
  parseName,
  parsePositiveDuration,
} from '../options.js';
import { ON_COMPLETE, parseParallel, type RawRunFlags } from '../run-flags.js';
import { ON_LIMIT, parseNotifyUrl, parsePercent, parseUsd } from '../unattended-flags.js';
import { parseAllowHost, parseDenyRead, SANDBOX_SWITCH } from '../sandbox-flags.js';

// The keys of the settings files (docs/contract.md, "Settings"): the long names of the run
// options that make sense as a standing choice. Each is checked by its flag's own parser, so a
// value a flag refuses is refused in a file too, with the same words.

/** What the file's value stands for: the flag's field as commander hands it over. */
type FlagField = keyof RawRunFlags;

export interface SettingKey {
  field: FlagField;
  /** A repeatable flag: a list in the file (one string is a list of one). */
  list: boolean;
  /** The flag's own parser on one value; its UsageError names `name`. */
  check: (text: string, name: string) => unknown;
  /**
   * The run records this part (its intent, budget, fallback agents or notifications): a resume
   * goes on with the record, never with what the file says now (contract: "The run's intent").
   */
  recorded: boolean;
}

const one = (field: FlagField, check: SettingKey['check'], recorded: boolean): SettingKey => ({
  field,
  list: false,
  check,
  recorded,
});
const many = (field: FlagField, check: SettingKey['check']): SettingKey => ({
  field,
  list: true,
  check,
  recorded: true,
});

/** Every setting, in the order `ralphtool config` prints them. */
export const SETTING_KEYS = {
  agent: one('agent', (t, n) => parseChoice(t, AGENT_KINDS, n), true),
  'agent-command': one('agentCommand', parseCommandLine, true),
  model: one('model', parseName, true),
  'max-retries': one('maxRetries', parseCount, true),
  'agent-timeout': one('agentTimeout', parseDuration, true),
  'idle-timeout': one('idleTimeout', parseDuration, true),
  verify: many('verify', parseCommandLine),
  'verify-timeout': one('verifyTimeout', parseDuration, true),
  'on-limit': one('onLimit', (t, n) => parseChoice(t, ON_LIMIT, n), true),
  'max-wait': one('maxWait', parseDuration, true),
  'pause-at': one('pauseAt', parsePercent, true),
  'fallback-agent': many('fallbackAgent', (t, n) => parseChoice(t, AGENT_KINDS, n)),
  'fallback-model': many('fallbackModel', parseName),
  'max-cost': one('maxCost', parseUsd, true),
  'max-story-cost': one('maxStoryCost', parseUsd, true),
  notify: many('notify', parseCommandLine),
  'notify-url': many('notifyUrl', parseNotifyUrl),
  'notify-timeout': one('notifyTimeout', parsePositiveDuration, true),
  'review-agent': one(
    'reviewAgent',
    (t, n) =>
      parseChoice(
        t,
        AGENT_KINDS.filter((kind) => kind !== 'command'),
        n,
      ),
    true,
  ),
  'review-command': one('reviewCommand', parseCommandLine, true),
  'max-review-rounds': one('maxReviewRounds', parseCount, true),
  sandbox: one('sandbox', (t, n) => parseChoice(t, SANDBOX_SWITCH, n), true),
  'allow-host': many('allowHost', parseAllowHost),
  'sandbox-deny-read': many('sandboxDenyRead', parseDenyRead),
  // Each invocation's own, as the flags are (contract: not recorded).
  'max-duration': one('maxDuration', parsePositiveDuration, false),
  'on-complete': one('onComplete', (t, n) => parseChoice(t, ON_COMPLETE, n), false),
  'command-timeout': one('commandTimeout', parsePositiveDuration, false),
  parallel: one('parallel', (t, n) => parseParallel(t, n), false),
  'worktree-parent': one('worktreeParent', parseFolder, false),
} as const satisfies Record<string, SettingKey>;

export type SettingName = keyof typeof SETTING_KEYS;
export const SETTING_NAMES = Object.keys(SETTING_KEYS) as SettingName[];

/**
 * Run options that are no settings, and why: a file that names one is told so (rather than
 * "unknown"). Switches cannot be switched back off by a flag for one run, so a file that turned
 * them on would bind every run; the rest are about one command, not a standing choice.
 */
export const NOT_SETTINGS: Readonly<Record<string, string>> = {
  json: 'it is how one command talks to its caller: pass --json',
  force: 'reusing a branch is a decision about one run: pass --force',
  answer: 'it answers one question: pass --answer to resume',
  'answer-file': 'it answers one question: pass --answer-file to resume',
  all: 'it chooses the changes of one command: pass --all',
  from: 'it names where one run is fetched from: pass --from to resume',
  push: 'a run shared through a remote is decided per run (and each clone names its remotes): pass --push',
  'claim-ttl': 'it goes with --push, which is decided per run: pass --claim-ttl',
  'include-uncommitted': 'it consents to pushing your own files once: pass --include-uncommitted',
  'verify-strict': 'a switch that no flag can turn back off for one run: pass --verify-strict',
  review:
    'a switch: pass --review, or set review-agent (--max-review-rounds 0 turns it off for one run)',
  worktree: 'a switch that no flag can turn back off for one run: pass --worktree',
  'resolve-conflicts':
    'a switch that no flag can turn back off for one run: pass --resolve-conflicts',
  'keep-worktree': 'a switch that no flag can turn back off for one run: pass --keep-worktree',
  cwd: 'it is where one command works: pass -C',
};

export function isSettingName(name: string): name is SettingName {
  return Object.hasOwn(SETTING_KEYS, name);
}
