import { existsSync } from 'node:fs';
import { createBackend } from '../../agents/index.js';
import { assertAgentLoggedIn } from '../../agents/login-status.js';
import { assertRunPreflight } from '../../agents/preflight.js';
import type { Change } from '../../core/change.js';
import { countStories } from '../../core/change.js';
import { RuntimeError, UsageError } from '../../core/errors.js';
import type { RunEvent } from '../../core/events.js';
import {
  type CheckpointRun,
  type ForcedSave,
  openRun,
  ralphBranch,
  startRun,
} from '../../checkpoint/index.js';
import { changePaths, readChange } from '../../openspec/changes.js';
import { findOpenSpecRoot } from '../../openspec/root.js';
import { AccountGovernor } from '../account-governor.js';
import type { AccountPause } from '../account-pause.js';
import { ensureLearningsFile } from '../loop/learnings.js';
import {
  openWorktreePlace,
  prepareWorktreeStart,
  recordedHome,
  type WorktreePlace,
} from './launch-worktree.js';
import type { RunOptions } from '../options.js';
import { fallbackBackends } from '../unattended/fallback-backends.js';
import { notifyGiven, recordNotifyTargets } from '../unattended/notify-intent.js';
import {
  runLoop,
  type ChooseCompletion,
  type LoopDeps,
  type LoopResult,
} from '../loop/orchestrator.js';
import { assertAnswerFits } from '../question.js';
import { assertChangeValid } from './validate-change.js';
import { reviewerOf } from '../loop/reviewer.js';
import { pushTarget, type RemoteSession } from '../remote/remote-session.js';
import { openRunRemote } from '../remote/open-remote.js';
import { refusePrivateFilesToPush, refusePrivateStartToPush } from '../remote/private-files.js';
import { recordedState } from '../recorded-state.js';
import { continuedOptions, intentRecord } from '../intent.js';
import { containedBackends, openRunSandbox } from '../sandbox.js';
import { repairNotice, userTasksNotice } from '../repair-notice.js';
import { secretRootsOf, secretsHere } from '../secrets.js';
import { assertResumable, killOrphanedAgent, lockSession } from '../session.js';
import { projectInstructions, promptPaths, storiesReader, verifyPlan } from '../setup.js';

export type RunMode = 'start' | 'resume';

export interface LaunchRequest {
  cwd: string;
  change: string;
  options: RunOptions;
  mode: RunMode;
  /** The environment agents inherit (and where RALPHTOOL_CLAUDE_BIN is read). */
  env: NodeJS.ProcessEnv;
}

export interface LaunchHooks {
  emit: (event: RunEvent) => void;
  chooseCompletion: ChooseCompletion;
  stop: AbortSignal;
  /** One-line notes for the user that are not events (lock taken over, repair done). */
  notice: (message: string) => void;
  /** Told the run once it exists (the UI reads its branches and transcripts folder). */
  onRun?: (run: CheckpointRun) => void;
  /** Several runs in one process: the usage-limit pause they share (run/unattended/account-pause.ts). */
  accountPause?: AccountPause;
  /**
   * Several runs in one process: their worktree starts one at a time (`git worktree add` reads
   * every worktree's files, and fails on one another run is creating at that moment); resolves
   * with the way out.
   */
  enterStart?: () => Promise<() => void>;
}

/**
 * Everything `run` and `resume` do around the loop: read the change, check the agent,
 * take the locks, start or reopen the recorded run, then drive the loop. Refusals are
 * thrown before anything changes; the locks are released whatever happens.
 */
export async function launchRun(req: LaunchRequest, hooks: LaunchHooks): Promise<number> {
  const { options } = req;
  if (req.mode === 'resume' && options.force) {
    throw new UsageError('--force is only for `ralphtool run`');
  }
  const specRoot = findOpenSpecRoot(req.cwd);
  if (req.mode === 'start') {
    const change = await readChange(specRoot, req.change);
    if (!hasWorkLeft(change, specRoot, hooks.notice)) return 0;
    await assertChangeValid(specRoot, change, req.env);
  }
  // A start checks its agent before anything changes; a resume once it has read the run's intent.
  const startBackends = req.mode === 'start' ? checkedBackends(options, req.env, req.cwd) : null;
  if (req.mode === 'start') await assertAgentLoggedIn(options.agent, req.env, req.cwd);
  // `--sandbox` is set up (or refused, fail-closed) before anything changes (run/sandbox.ts).
  let sandbox = req.mode === 'start' ? await openRunSandbox(options, req.env) : null;
  const where = {
    specRoot,
    change: req.change,
    timeoutMs: options.commandTimeoutMs,
    env: req.env,
  };
  // A run in a worktree of its own locks that worktree, not the user's work tree it came from.
  const recorded = req.mode === 'resume' ? await recordedHome(where) : null;
  const inWorktree = req.mode === 'start' ? options.worktree : recorded !== null;
  const locks = await lockSession(specRoot, req.change, options.commandTimeoutMs, req.env, {
    workTree: !inWorktree,
  }).catch(async (error: unknown) => {
    await sandbox?.release();
    throw error;
  });
  let place: WorktreePlace | null = null;
  let remote: RemoteSession | null = null;
  try {
    for (const warning of locks.warnings) hooks.notice(`warning: ${warning}`);
    // Claimed before anything changes: another machine's run of the change is a refusal.
    // A resume reads its record once before anything changes (with --from, again once fetched).
    const before = req.mode === 'resume' ? await recordedState(where) : null;
    const pushTo = pushTarget(options.push ?? options.from, before);
    // The user's uncommitted files would go out with the start's commit: never without asking.
    const pushWhere = { ...where, includeUncommitted: options.includeUncommitted };
    if (req.mode === 'start' && pushTo !== null && !options.worktree) {
      await refusePrivateFilesToPush({ ...pushWhere, remote: pushTo });
    }
    if (before !== null && pushTo !== null && options.from === null) {
      await refusePrivateStartToPush({ ...pushWhere, remote: pushTo }, before);
    }
    // `resume --from`: the run recorded on the remote becomes this machine's, once claimed.
    remote = await openRunRemote({
      pushTo,
      from: req.mode === 'resume' ? options.from : null,
      command: req.mode === 'resume' ? 'resume' : 'run',
      force: options.force,
      change: req.change,
      cwd: specRoot,
      commandTimeoutMs: options.commandTimeoutMs,
      claimTtlMs: options.claimTtlMs,
      env: req.env,
      notice: hooks.notice,
    });
    // A resume goes on with the run's recorded intent, each flag given now replacing its part.
    const recordedNow = options.from === null ? before : await recordedState(where);
    const continued =
      req.mode === 'resume'
        ? continuedOptions(options, recordedNow, where.change, req.cwd, hooks.notice)
        : { options, baseDir: req.cwd };
    const checked = startBackends ?? checkedBackends(continued.options, req.env, continued.baseDir);
    // The reviewer's program is checked before anything changes too (a resume's: its intent's).
    const ownReviewer = reviewerOf(continued.options, checked.backend, req.env, continued.baseDir);
    if (req.mode === 'resume') {
      await assertAgentLoggedIn(continued.options.agent, req.env, continued.baseDir);
      sandbox = await openRunSandbox(continued.options, req.env);
    }
    const { backend, backendFor } = containedBackends(checked, sandbox);
    // A sandboxed run's reviewer is contained too (its agent's hosts are allowed: run/sandbox.ts).
    const reviewer =
      ownReviewer === null || sandbox === null
        ? ownReviewer
        : { ...ownReviewer, backend: sandbox.contain(ownReviewer.backend) };
    let run: CheckpointRun;
    ({ run, place } = await startOrReopen(
      { ...req, options: continued.options },
      hooks,
      where,
      recorded,
    ));
    await run.recordIntent(intentRecord(continued.options, continued.baseDir));
    // The notifications too, in a file of their own (never pushed): given now, or kept.
    if (req.mode === 'start' || notifyGiven(options)) await recordNotifyTargets(run.paths, options);
    hooks.onRun?.(run);
    if ((run.state.remote?.push ?? null) !== pushTo) await run.recordRemote(pushTo);
    const emit = remote === null ? hooks.emit : remote.attach(run, hooks.emit);
    const lost = remote?.lost;
    const result = await driveLoop(
      place?.specRoot ?? specRoot,
      req.change,
      continued.options,
      req.env,
      {
        run,
        backend,
        backendFor,
        reviewer,
        emit,
        // A claim lost to another machine stops the run at once and leaves it recorded.
        chooseCompletion: (outcome, how) =>
          lost?.aborted === true ? Promise.resolve(null) : hooks.chooseCompletion(outcome, how),
        stop: lost === undefined ? hooks.stop : AbortSignal.any([hooks.stop, lost]),
        notice: hooks.notice,
        ...(hooks.accountPause ? { accountPause: hooks.accountPause } : {}),
        ...(sandbox ? { sandbox: { hosts: sandbox.hosts, summary: sandbox.summary } } : {}),
        account: AccountGovernor.of(
          continued.options,
          req.env,
          { change: req.change, dir: run.paths.dir },
          hooks.notice,
          remote?.accountShare() ?? null,
        ),
        // A run that pushes: an attempt that writes a secret's value into a file fails.
        ...(remote === null
          ? {}
          : { pushedSecrets: () => secretsHere(req.env, secretRootsOf(run)) }),
      },
    );
    // The last push may be the one that finds the claim lost or the remote's branch moved.
    const session = remote;
    remote = null;
    await session?.end();
    const lostMessage = session?.lostMessage ?? null;
    if (lostMessage !== null) throw new RuntimeError(lostMessage);
    return result.exitCode;
  } finally {
    await sandbox?.release();
    await remote?.end();
    await place?.lock.release();
    await locks.release();
    await locks.forgetIfUnused();
  }
}

/**
 * The agent's backend and the fallbacks', each program checked before anything changes (a
 * resume's recorded fallbacks as the loop starts: they are only known once the run is read). A
 * relative agent program is where the user typed it from (-C or the current directory).
 */
function checkedBackends(
  options: RunOptions,
  env: NodeJS.ProcessEnv,
  cwd: string,
): Pick<LoopDeps, 'backend'> & { backendFor: NonNullable<LoopDeps['backendFor']> } {
  const agentCommand = options.agentCommand ?? undefined;
  const agent = { agent: options.agent, ...(agentCommand ? { agentCommand } : {}) };
  assertRunPreflight({ ...agent, verify: options.verify }, env, cwd);
  const backend = createBackend(
    { ...agent, ...(options.model ? { model: options.model } : {}), baseDir: cwd },
    env,
  );
  const backendFor = fallbackBackends(options, env, cwd);
  for (const fallback of options.fallbacks ?? []) backendFor(fallback);
  return { backend, backendFor };
}

/**
 * The recorded run a launch works on: started (in the user's work tree, or in a new worktree of
 * its own) or reopened (its worktree made again when it is gone). Worktree starts go one at a
 * time (`hooks.enterStart`); on a refusal the worktree's lock is given back.
 */
async function startOrReopen(
  req: LaunchRequest,
  hooks: LaunchHooks,
  where: { specRoot: string; change: string; timeoutMs: number; env: NodeJS.ProcessEnv },
  recorded: Awaited<ReturnType<typeof recordedHome>>,
): Promise<{ run: CheckpointRun; place: WorktreePlace | null }> {
  const { options } = req;
  const specRoot = where.specRoot;
  let leaveStart: (() => void) | undefined;
  let place: WorktreePlace | null = null;
  let run: CheckpointRun;
  try {
    if (req.mode === 'start') {
      const start = {
        cwd: specRoot,
        change: req.change,
        timeoutMs: options.commandTimeoutMs,
        baseEnv: req.env,
        force: options.force,
        onForced: (saved: ForcedSave) =>
          hooks.emit({
            type: 'run.forced',
            branch: ralphBranch(req.change),
            oldSha: saved.oldSha,
            savedRef: saved.branchRef,
            attemptRefs: saved.attemptRefs,
          }),
      };
      if (options.worktree) leaveStart = await hooks.enterStart?.();
      if (options.worktree) {
        const prepared = await prepareWorktreeStart(
          { ...where, keepWorktree: options.keepWorktree, worktreeParent: options.worktreeParent },
          hooks.notice,
        );
        place = prepared;
        run = await startRun({
          ...start,
          cwd: prepared.specRoot,
          home: { home: prepared.home, head: prepared.homeHead },
        }).catch(async (error: unknown) => {
          await prepared.undo();
          throw error;
        });
      } else {
        run = await startRun(start);
      }
    } else {
      if (recorded !== null) {
        // Recreating a missing worktree is a `git worktree add` too: one at a time.
        leaveStart = await hooks.enterStart?.();
        place = await openWorktreePlace(recorded, where, hooks.notice);
      }
      run = await reopen(place?.specRoot ?? specRoot, req.change, options, req.env, hooks.notice);
    }
    return { run, place };
  } catch (error) {
    await place?.lock.release();
    throw error;
  } finally {
    leaveStart?.();
  }
}

/**
 * The loop on a recorded run: reads the change (after a resume's repair, so from the
 * checkpoint, not the user's branch), makes sure the learnings file exists, and runs it.
 */
export async function driveLoop(
  specRoot: string,
  changeName: string,
  options: RunOptions,
  env: NodeJS.ProcessEnv,
  deps: LoopDeps,
): Promise<LoopResult> {
  const change = await readChange(specRoot, changeName);
  await ensureLearningsFile(deps.run.paths.learnings);
  try {
    return await runLoop(
      {
        repoRoot: deps.run.repo.root,
        change,
        paths: promptPaths(deps.run.repo.root, specRoot, change),
        options,
        env,
        verify: verifyPlan(options.verify, [deps.run.repo.root, specRoot]),
        instructions: await projectInstructions(deps.run.repo.root),
        rereadStories: storiesReader(specRoot, change.name),
      },
      deps,
    );
  } finally {
    // However the loop ended (finished, stopped, parked, failed), its idle git goes with it: a
    // session that stays open (the terminal UI) would keep one per run it ran.
    deps.run.closeRefWriter();
  }
}

function hasWorkLeft(change: Change, specRoot: string, notice: (message: string) => void): boolean {
  const stories = countStories(change.stories);
  if (stories.total === 0 && !existsSync(changePaths(specRoot, change.name).tasksPath)) {
    throw new UsageError(
      `${change.path} has no tasks.md: write the change's tasks there first (\`openspec instructions tasks --change ${change.name}\` explains how)`,
    );
  }
  if (stories.total === 0) {
    throw new UsageError(
      `${change.path}/tasks.md has no tasks (no "- [ ]" lines): add tasks first (\`ralphtool show ${change.name}\`)`,
    );
  }
  if (stories.done === stories.total) {
    notice(`all ${stories.total} stories of ${change.name} are complete: nothing to do`);
    return false;
  }
  return true;
}

/** Resume: the recorded run, its dead agent stopped, a half-done attempt saved and reverted. */
async function reopen(
  specRoot: string,
  change: string,
  options: RunOptions,
  baseEnv: NodeJS.ProcessEnv,
  notice: (message: string) => void,
): Promise<CheckpointRun> {
  const run = await openRun({
    cwd: specRoot,
    change,
    timeoutMs: options.commandTimeoutMs,
    baseEnv,
  });
  assertResumable(run.state, 'resume');
  assertAnswerFits(run.state, options.answer);
  if (killOrphanedAgent(run.state)) notice('stopped the agent the interrupted run left running');
  await run.claim(process.pid);
  if (options.answer !== null) await run.recordAnswer(options.answer);
  const tasksEdits = userTasksNotice(await run.takeUserTasksEdits(), run.branch);
  if (tasksEdits !== null) notice(tasksEdits);
  const repaired = repairNotice(await run.ensureAtCheckpoint(), run.branch);
  if (repaired !== null) notice(repaired);
  return run;
}
