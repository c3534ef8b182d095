import { readFile, stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { z } from 'zod';
import { writeFileWhole } from './whole-file.js';
import { RuntimeError } from '../core/errors.js';
import { COMPLETION_CHOICES, FAILURE_KINDS, LIMIT_KINDS, RUN_OUTCOMES } from '../core/events.js';
import { errnoCode, messageOf } from '../core/error-details.js';
import type { RunIntent } from '../core/run-intent.js';

const sha = z.string().regex(/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/, 'a full commit sha');

const originalBranchSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('branch'), name: z.string().min(1) }),
  z.object({ kind: z.literal('detached'), sha }),
  z.object({ kind: z.literal('unborn'), name: z.string().min(1) }),
]);

/** What one attempt spent; added to its story's and the run's totals. */
const figuresSchema = z.object({
  costUsd: z.number().min(0),
  durationMs: z.number().min(0),
});

/**
 * `--resolve-conflicts` (docs/contract.md, "Bringing a colliding change home"): the branch moved
 * onto the user's work tree, with a story for the agent to resolve the conflicts.
 */
const resolveSchema = z.object({
  /** The story appended to tasks.md. */
  storyId: z.string().min(1),
  /** The checkpoint before: the branch goes back there when the story is not done. */
  from: sha,
  /**
   * The user's work tree as a commit (its parents: their HEAD and the run's "initial state"): the
   * merge base of the cleanup from now on, so that only the agent's resolution is applied.
   */
  home: sha,
  /** The files that collided. */
  files: z.array(z.string()),
});

/** A multi-step git sequence in progress; left set by a crash, so the next run can finish it. */
const stepSchema = z.object({
  op: z.enum(['start', 'accept', 'revert', 'cleanup', 'keep', 'resolve', 'unresolve']),
  storyId: z.string().optional(),
  attempt: z.number().int().min(0).optional(),
  /** An accept's attempt figures, so that finishing it after a crash records them too. */
  figures: figuresSchema.optional(),
  /** An accept's commit body (docs/contract.md, "Accept a story"), so a crash keeps it too. */
  body: z.string().optional(),
});

const storyProgressSchema = z.object({
  attempts: z.number().int().min(0),
  completed: z.boolean(),
  costUsd: z.number().min(0),
  durationMs: z.number().min(0),
  // Only advice for the next prompt: a kind this version does not know (a state written by a
  // newer ralphtool, a hand edit) is read as no failure rather than refusing the whole run.
  lastFailure: z
    .object({ kind: z.enum(FAILURE_KINDS), reason: z.string() })
    .nullable()
    .catch(null),
  /**
   * The agents that ran its attempts, in order of first use (docs/contract.md, "Fallback
   * agents"); missing in records written before it existed, and for attempts not run by the loop.
   */
  agents: z.array(z.string().min(1)).optional(),
  /**
   * Verify runs of its attempts that failed, then passed when run again (docs/contract.md,
   * "Tests the agent may not weaken"); missing when none did.
   */
  flakes: z.number().int().min(0).optional(),
  /** What its accepted attempt changed in the tests, let through, each with what allowed it. */
  testChanges: z.array(z.string()).optional(),
  /**
   * `--sandbox`: what the sandbox refused its attempts' agents, each counted (docs/sandbox.md);
   * missing when it refused nothing.
   */
  sandboxBlocks: z
    .array(
      z.object({
        kind: z.enum(['network', 'write']),
        target: z.string(),
        count: z.number().int().min(1),
      }),
    )
    .optional(),
  /**
   * Each counted failure of its attempts, in order (for the checkpoint's body and `report`);
   * missing in records written before it existed. A kind this version does not know is dropped.
   */
  failures: z
    .array(
      z.object({
        attempt: z.number().int().min(0),
        kind: z.enum(FAILURE_KINDS),
        reason: z.string(),
      }),
    )
    .optional()
    .catch(undefined),
  /** The verify results of its accepted attempt; missing when none ran. */
  verify: z
    .array(
      z.object({
        command: z.string(),
        passed: z.boolean(),
        tolerated: z.boolean().optional(),
        flaky: z.boolean().optional(),
      }),
    )
    .optional(),
});

const questionSchema = z.object({
  storyId: z.string().min(1),
  attempt: z.number().int().min(0),
  text: z.string(),
  askedAt: z.iso.datetime(),
  answer: z.string().nullable(),
});

/**
 * A usage-limit wait in progress (docs/contract.md, "Usage limits"): `status` shows it, and a
 * `resume` after a crash during the wait waits out what is left of it before the first attempt.
 */
const waitSchema = z.object({
  /** When the wait ends (the reset plus the margin, or the backoff). */
  until: z.iso.datetime(),
  kind: z.enum(LIMIT_KINDS),
  source: z.string(),
  storyId: z.string(),
  message: z.string(),
  /** The reset time the agent reported, null when it gave none (the wait is a backoff). */
  resetsAt: z.string().nullable(),
});

/** Until when an agent is limited (core/agent-choice.ts AgentLimitRecord). */
const agentLimitSchema = z.object({
  until: z.iso.datetime(),
  kind: z.enum(LIMIT_KINDS),
  source: z.string(),
  message: z.string(),
  resetsAt: z.string().nullable(),
});

/**
 * `--fallback-agent` (docs/contract.md, "Fallback agents"): the agents tried in order while the
 * one before is limited, each with its model (null: the agent's own), so that a resume keeps
 * them; and until when each agent is limited, so that a resume after a crash does not try a
 * limited one first. Agent names are the run layer's to check (this folder knows no agents).
 */
const fallbackSchema = z.object({
  agents: z.array(z.object({ agent: z.string().min(1), model: z.string().min(1).nullable() })),
  limited: z.record(z.string(), agentLimitSchema),
});

export const STATE_VERSION = 1;

export const runStateSchema = z.object({
  version: z.literal(STATE_VERSION),
  change: z.string().min(1),
  /** `ralph/<change>` */
  branch: z.string().min(1),
  /** Where the user was when the run started; cleanup returns there. */
  originalBranch: originalBranchSchema,
  /** The commit HEAD pointed at when the run started; null on an unborn branch. */
  originalSha: sha.nullable(),
  /** The "initial state" commit; null only while `step.op` is `start`. */
  baseSha: sha.nullable(),
  /** The commit every attempt starts from; null only while `step.op` is `start`. */
  checkpointSha: sha.nullable(),
  status: z.enum(['active', 'finished']),
  outcome: z.enum(RUN_OUTCOMES).nullable(),
  choice: z.enum(COMPLETION_CHOICES).nullable(),
  step: stepSchema.nullable(),
  stories: z.record(z.string(), storyProgressSchema),
  currentStory: z.string().nullable(),
  currentAttempt: z.number().int().min(0).nullable(),
  costUsd: z.number().min(0),
  /** How many stories tasks.md had when the loop last read it (for readers of the record). */
  storiesTotal: z.number().int().min(0).optional(),
  /** The wall time of the run's invocations that ended (`run`, each `resume`), added up. */
  elapsedMs: z.number().min(0).optional(),
  startedAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
  /** Process running the loop; null when none is. */
  pid: z.number().int().nullable(),
  /** Process group of the agent running now; a crashed ralphtool's agent is killed through it. */
  agentPgid: z.number().int().nullable().default(null),
  /** Identity of that process (boot + start time), so a reused pid is never killed by mistake. */
  agentIdentity: z.string().nullable().default(null),
  host: z.string(),
  /**
   * The work tree the run belongs to (the run folder is shared by every worktree of the
   * repository); missing in records written before it existed.
   */
  worktree: z.object({ root: z.string().min(1), gitDir: z.string().min(1) }).optional(),
  /**
   * A run in a worktree of its own (`run --worktree`, several changes at once): the user's work
   * tree it started from and brings its work back to. `worktree` is then the one ralphtool
   * created, `originalBranch`/`originalSha` the user's branch and commit at the start.
   * `keepWorktree`: leave the worktree in place when the run ends (`--keep-worktree`).
   */
  home: z
    .object({ root: z.string().min(1), gitDir: z.string().min(1), keepWorktree: z.boolean() })
    .optional(),
  /**
   * The verify ratchet (core/verify-ratchet.ts): each `--verify` command's result at the last
   * baseline and whether it has passed on a checkpoint since; missing before any baseline.
   */
  verify: z
    .array(z.object({ command: z.string(), baselinePassed: z.boolean(), passedOnce: z.boolean() }))
    .optional(),
  /**
   * The cost budgets given at the start (or replaced by `resume --max-cost` / `--max-story-cost`),
   * so that a resume keeps them; missing in records written before budgets existed (none).
   */
  budget: z
    .object({
      maxCostUsd: z.number().positive().nullable(),
      maxStoryCostUsd: z.number().positive().nullable(),
    })
    .optional(),
  /**
   * The question a BLOCKED attempt asked, open until its story is accepted; `answer` is what
   * `resume --answer` gave (kept here so a crash after it keeps the answer). Missing in records
   * written before it existed.
   */
  question: questionSchema.nullable().optional(),
  /**
   * `--push <remote>`: the remote the run's refs and record go to, so that a `resume` without
   * `--push` keeps pushing there; absent or null for a run kept on this machine only.
   */
  remote: z
    .object({ push: z.string().min(1) })
    .nullable()
    .optional(),
  /** The usage-limit wait going on; absent or null when none is (records before it existed). */
  wait: waitSchema.nullable().optional(),
  /** Fallback agents and their limits; absent for a run without them. */
  fallback: fallbackSchema.optional(),
  /**
   * The run's intent (core/run-intent.ts): the options that shape the work, recorded at the start
   * (and as a resume's flags replace them) so that every continuation goes on with them; absent
   * in records written before it existed (a resume then takes its flags as they are).
   */
  intent: z
    .object({
      agent: z.string().min(1),
      agentCommand: z.string().nullable(),
      model: z.string().nullable(),
      maxRetries: z.number().int().min(0),
      agentTimeoutMs: z.number().int().min(0),
      idleTimeoutMs: z.number().int().min(0),
      verify: z.array(z.string()),
      verifyTimeoutMs: z.number().int().min(0),
      verifyStrict: z.boolean(),
      /** Missing in records written before the test gate existed: off, as it was. */
      allowTestChanges: z.boolean().default(false),
      onLimit: z.enum(['wait', 'stop']),
      maxWaitMs: z.number().int().min(0),
      /** Missing in records written before the review existed: none, as it was. */
      review: z.string().min(1).nullable().default(null),
      reviewCommand: z.string().nullable().default(null),
      maxReviewRounds: z.number().int().min(0).default(2),
      /** Missing in records written before `--sandbox` existed: off, as it was. */
      sandbox: z.boolean().default(false),
      allowHosts: z.array(z.string()).default([]),
      sandboxDenyRead: z.array(z.string()).default([]),
      /** Missing in records written before `--pause-at` existed: none, as it was. */
      pauseAt: z.number().min(1).max(100).nullable().default(null),
      /** Missing in records written before `--resolve-conflicts` existed: off, as it was. */
      resolveConflicts: z.boolean().default(false),
      /** Where the run was started from: a relative `--agent-command` program is found there. */
      baseDir: z.string().min(1),
      /** The project's prompt template the run started with; absent or null: the built-in one. */
      promptTemplate: z.string().nullable().optional(),
    })
    // The record holds every part of the intent core/run-intent.ts defines (checked by the type).
    .optional() satisfies z.ZodType<(RunIntent & { baseDir: string }) | undefined>,
  /** The conflicts the agent is resolving (`--resolve-conflicts`); absent or null when none. */
  resolve: resolveSchema.nullable().optional(),
  /** The agent (and model) of the attempt running or last run; absent before any attempt. */
  attemptAgent: z
    .object({ agent: z.string().min(1), model: z.string().nullable() })
    .nullable()
    .optional(),
  /** The last independent review's verdict (docs/contract.md, "The review"), for `report`. */
  review: z
    .object({
      round: z.number().int().min(1),
      verdict: z.enum(['approved', 'rejected']),
      reasons: z.string().nullable(),
      scenarios: z.array(
        z.object({
          capability: z.string(),
          requirement: z.string(),
          scenario: z.string(),
          met: z.boolean().nullable(),
          note: z.string(),
        }),
      ),
    })
    .optional(),
});

export type RunState = z.infer<typeof runStateSchema>;
export type OriginalBranch = RunState['originalBranch'];
export type RunStep = NonNullable<RunState['step']>;
export type StoryProgress = RunState['stories'][string];
export type AttemptFigures = z.infer<typeof figuresSchema>;
export type OpenQuestion = z.infer<typeof questionSchema>;
export type LimitWaitRecord = z.infer<typeof waitSchema>;
export type RunHome = NonNullable<RunState['home']>;
export type FallbackRecord = z.infer<typeof fallbackSchema>;
export type IntentRecord = NonNullable<RunState['intent']>;

/** Progress of a story that has not been tried yet. */
export function newStoryProgress(): StoryProgress {
  return { attempts: 0, completed: false, costUsd: 0, durationMs: 0, lastFailure: null };
}

/**
 * Parses a state file's text. Anything unexpected is an error naming the file and the way
 * out, because guessing could send the loop or a cleanup off on the wrong branch.
 */
export function parseRunState(text: string, file: string): RunState {
  const way = unreadableWayOut(basename(dirname(file)), dirname(file));
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new RuntimeError(`run state ${file} is not valid JSON: ${way}`);
  }
  const version = (data as { version?: unknown } | null)?.version;
  if (version !== STATE_VERSION) {
    throw new RuntimeError(
      `run state ${file} has version ${JSON.stringify(version) ?? 'none'}, this ralphtool reads version ${STATE_VERSION}: ${way}`,
    );
  }
  const parsed = runStateSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? issue.path.join('.') : 'file';
    throw new RuntimeError(
      `run state ${file} is damaged (${where}: ${issue?.message ?? 'invalid'}): ${way}`,
    );
  }
  return parsed.data;
}

/** The recorded state, or null when no run of this change is recorded. */
export async function readRunState(file: string): Promise<RunState | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return null;
    throw new RuntimeError(`cannot read run state ${file}: ${messageOf(error)}`);
  }
  return parseRunState(text, file);
}

export async function runStateExists(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

/**
 * Replaces the state file atomically: a reader (or a crash) sees the old file or the new
 * one, never half of one. The content is validated first so that a bug cannot store junk.
 */
export async function writeRunState(file: string, state: RunState): Promise<void> {
  const checked = runStateSchema.parse(state);
  try {
    await writeFileWhole(file, `${JSON.stringify(checked, null, 2)}\n`);
  } catch (error) {
    throw new RuntimeError(`cannot write run state ${file}: ${messageOf(error)}`);
  }
}

/**
 * What to do when a run's state cannot be read. Without it ralphtool cannot tell where the
 * run started, and will not guess; the work itself is safe on the run's branch.
 */
export function unreadableWayOut(change: string, folder = `.git/ralphtool/${change}`): string {
  return `ralphtool cannot tell where this run started, so it will not guess; its work is on branch ralph/${change}: delete the folder ${folder} to forget the run, then keep that branch, merge it where you want it (\`git merge --squash ralph/${change}\`) or delete it (\`git branch -D ralph/${change}\`)`;
}
