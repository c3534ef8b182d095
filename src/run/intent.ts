import { existsSync } from 'node:fs';
import { RuntimeError } from '../core/errors.js';
import { continueIntent, type IntentChange, type RunIntent } from '../core/run-intent.js';
import type { IntentRecord, RunState } from '../checkpoint/index.js';
import { formatDuration } from '../format/units.js';
import { AGENT_KINDS, type AgentKind, type RunOptions } from './options.js';

/** The intent the options carry (core/run-intent.ts). */
export function intentOf(options: RunOptions): RunIntent {
  return {
    agent: options.agent,
    agentCommand: options.agentCommand,
    model: options.model,
    maxRetries: options.maxRetries,
    agentTimeoutMs: options.agentTimeoutMs,
    idleTimeoutMs: options.idleTimeoutMs,
    verify: [...options.verify],
    verifyTimeoutMs: options.verifyTimeoutMs,
    verifyStrict: options.verifyStrict,
    allowTestChanges: options.allowTestChanges,
    onLimit: options.onLimit,
    maxWaitMs: options.maxWaitMs,
    review: options.review,
    reviewCommand: options.reviewCommand,
    maxReviewRounds: options.maxReviewRounds,
    sandbox: options.sandbox,
    allowHosts: [...options.allowHosts],
    sandboxDenyRead: [...options.sandboxDenyRead],
    pauseAt: options.pauseAt,
    resolveConflicts: options.resolveConflicts,
  };
}

/** The record of the intent a run goes on with, and where its relative programs are found. */
export function intentRecord(options: RunOptions, baseDir: string): IntentRecord {
  return {
    ...intentOf(options),
    verify: [...options.verify],
    allowHosts: [...options.allowHosts],
    sandboxDenyRead: [...options.sandboxDenyRead],
    baseDir,
    promptTemplate: options.promptTemplate ?? null,
  };
}

/** What a resume works with: its options with the recorded intent, and the programs' folder. */
export interface ContinuedRun {
  options: RunOptions;
  /** Where a relative `--agent-command` program is found: the start's folder, unless given now. */
  baseDir: string;
}

/**
 * A resume's options (docs/contract.md, "The run's intent"): the recorded intent, each part
 * replaced only by a flag given on this command line, each replacement said in one notice. A run
 * recorded before intents existed goes on with the flags as they are.
 */
export function continuedOptions(
  options: RunOptions,
  state: RunState | null,
  change: string,
  cwd: string,
  notice: (message: string) => void,
): ContinuedRun {
  const recorded = state?.intent ?? null;
  if (recorded === null) return { options, baseDir: cwd };
  const { baseDir, promptTemplate, ...intent } = recorded;
  const { intent: next, changes } = continueIntent(intent, intentOf(options), options.intentGiven);
  for (const change of changes) notice(describeChange(change));
  const agent = next.agent as AgentKind;
  if (!AGENT_KINDS.includes(agent)) {
    throw new RuntimeError(
      `the run of ${change} was started with --agent ${next.agent}, which this ralphtool does not know: resume it with --agent ${AGENT_KINDS.join('|')}`,
    );
  }
  // A folder of another machine (`resume --from`) is not here: the program is found from here.
  const fromHere = options.intentGiven.has('agentCommand') || !existsSync(baseDir);
  return {
    // The template the run started with, never the file as it is now.
    options: {
      ...options,
      ...next,
      agent,
      verify: [...next.verify],
      promptTemplate: promptTemplate ?? null,
      allowHosts: [...next.allowHosts],
      sandboxDenyRead: [...next.sandboxDenyRead],
    },
    baseDir: fromHere ? cwd : baseDir,
  };
}

/** `--verify is now "npm test" (the run had "npm run lint")`. */
function describeChange(change: IntentChange): string {
  return `${change.flag} is now ${show(change.key, change.now)} (the run had ${show(change.key, change.was)})`;
}

function show(key: IntentChange['key'], value: IntentChange['now']): string {
  if (value === null) return 'none';
  if (Array.isArray(value)) {
    return value.length === 0 ? 'none' : value.map((v) => JSON.stringify(v)).join(', ');
  }
  if (typeof value === 'number' && key.endsWith('Ms'))
    return value === 0 ? 'none' : formatDuration(value);
  if (typeof value === 'boolean') return value ? 'on' : 'off';
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}
