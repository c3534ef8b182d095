// The run's intent (docs/contract.md, "The run's intent"): the options that shape the work,
// recorded when a run starts so that every continuation (`resume` however it is typed, from the
// CLI, the UI or `--all`) goes on with the same agent and the same gate. Budgets, fallback agents
// and the push remote have records of their own. Pure: the run layer reads and writes the record.

/** What a run was started to do, as its flags said (defaults filled in). */
export interface RunIntent {
  agent: string;
  agentCommand: string | null;
  model: string | null;
  maxRetries: number;
  agentTimeoutMs: number;
  idleTimeoutMs: number;
  verify: readonly string[];
  verifyTimeoutMs: number;
  verifyStrict: boolean;
  /** `--allow-test-changes`: the test gate reports what it finds instead of failing the attempt. */
  allowTestChanges: boolean;
  onLimit: 'wait' | 'stop';
  maxWaitMs: number;
  /** The independent review: null none, `agent` the run's own, an agent kind, or `command`. */
  review: string | null;
  reviewCommand: string | null;
  maxReviewRounds: number;
  /** `--sandbox` and its policy's additions (docs/sandbox.md). */
  sandbox: boolean;
  allowHosts: readonly string[];
  sandboxDenyRead: readonly string[];
  /** `--pause-at`: the percent of the account's window at which no new attempt starts. */
  pauseAt: number | null;
  /**
   * `--resolve-conflicts`: a cleanup that collides with the user's work tree gives the agent one
   * more story, bringing the branch onto that tree, instead of keeping the work on the branch.
   */
  resolveConflicts: boolean;
}

export type IntentKey = keyof RunIntent;

/** Each part of the intent and the flag that gives it, in the order notices name them. */
export const INTENT_FLAGS: Readonly<Record<IntentKey, string>> = {
  agent: '--agent',
  agentCommand: '--agent-command',
  model: '--model',
  maxRetries: '--max-retries',
  agentTimeoutMs: '--agent-timeout',
  idleTimeoutMs: '--idle-timeout',
  verify: '--verify',
  verifyTimeoutMs: '--verify-timeout',
  verifyStrict: '--verify-strict',
  allowTestChanges: '--allow-test-changes',
  onLimit: '--on-limit',
  maxWaitMs: '--max-wait',
  review: '--review',
  reviewCommand: '--review-command',
  maxReviewRounds: '--max-review-rounds',
  sandbox: '--sandbox',
  allowHosts: '--allow-host',
  sandboxDenyRead: '--sandbox-deny-read',
  pauseAt: '--pause-at',
  resolveConflicts: '--resolve-conflicts',
};

export const INTENT_KEYS = Object.keys(INTENT_FLAGS) as IntentKey[];

/** A part of the intent this continuation's flags replaced. */
export interface IntentChange {
  key: IntentKey;
  flag: string;
  was: RunIntent[IntentKey];
  now: RunIntent[IntentKey];
}

/**
 * The intent a continuation goes on with: the recorded one, each part replaced only by a flag
 * given on this command line (`given`; `current` holds what the flags said, defaults filled
 * in). A new agent brings its own command and model: the recorded ones were another agent's.
 */
export function continueIntent(
  recorded: RunIntent,
  current: RunIntent,
  given: ReadonlySet<IntentKey>,
): { intent: RunIntent; changes: IntentChange[] } {
  const replaces = (key: IntentKey): boolean =>
    given.has(key) ||
    ((key === 'agentCommand' || key === 'model') &&
      given.has('agent') &&
      current.agent !== recorded.agent);
  const intent = { ...recorded };
  const changes: IntentChange[] = [];
  for (const key of INTENT_KEYS) {
    if (!replaces(key) || sameValue(recorded[key], current[key])) continue;
    (intent as Record<IntentKey, unknown>)[key] = current[key];
    changes.push({ key, flag: INTENT_FLAGS[key], was: recorded[key], now: current[key] });
  }
  return { intent, changes };
}

function sameValue(a: RunIntent[IntentKey], b: RunIntent[IntentKey]): boolean {
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, i) => item === b[i]);
  }
  return a === b;
}
