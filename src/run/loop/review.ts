import type { Story } from '../../core/change.js';
import { RalphError } from '../../core/errors.js';
import type { RunOutcome } from '../../core/events.js';
import {
  buildReviewPrompt,
  parseReviewSignal,
  scenarioVerdicts,
  type ReviewSignal,
} from '../../core/review.js';
import { withoutEchoedPrompt } from '../../core/signal.js';
import { engineContext, promptFile, transcriptFile } from '../../checkpoint/index.js';
import { diffText } from '../../git/diffstat.js';
import { processIdentity } from '../lock.js';
import type { LoopDeps, LoopSetup } from '../loop-types.js';
import type { Reviewer } from '../loop-types.js';
import { attemptStory } from './story-attempt.js';

/** How the review phase ended: approved (the run is complete), or why not. */
export type ReviewOutcome = Extract<RunOutcome, 'complete' | 'not-approved' | 'stopped' | 'error'>;

/** The story id a review's attempts are recorded under: `review-<round>`. */
export function reviewStoryId(round: number): string {
  return `review-${round}`;
}

/**
 * The independent review (docs/contract.md, "The review"), once every story is accepted: a
 * fresh reviewer judges the change against every scenario of its specs; rejected, the work agent
 * gets one fix attempt with the reasons, judged like a story and accepted as its own checkpoint
 * (`review-<round>`), then a new review, up to `--max-review-rounds` reviews.
 */
export async function reviewChange(
  setup: LoopSetup,
  deps: LoopDeps,
  stories: readonly Story[],
  reviewer: Reviewer,
): Promise<{ outcome: ReviewOutcome; fatal: string | null }> {
  const maxRounds = setup.options.maxReviewRounds;
  for (let round = 1; ; round++) {
    if (deps.stop.aborted) return { outcome: 'stopped', fatal: null };
    deps.emit({ type: 'review.started', round, maxRounds, reviewer: reviewer.name });
    const reviewed = await runReviewer(setup, deps, reviewer, round, maxRounds);
    if (reviewed.kind === 'stopped') return { outcome: 'stopped', fatal: null };
    if (reviewed.kind === 'fatal') return { outcome: 'error', fatal: reviewed.message };
    if (reviewed.signal.kind === 'approved') return { outcome: 'complete', fatal: null };
    if (round >= maxRounds) return { outcome: 'not-approved', fatal: null };
    // The work agent fixes what the reviewer found: one attempt, judged like a story.
    const fix: Story = {
      id: reviewStoryId(round),
      title: `Fix what review round ${round} found`,
      line: 0,
      tasks: [],
      done: false,
    };
    const settled = await attemptStory(
      { ...setup, reviewFix: { round, reasons: reviewed.signal.reasons } },
      deps,
      stories,
      fix,
      1,
    );
    if (!settled.accepted && settled.fatal !== null)
      return { outcome: 'error', fatal: settled.fatal };
  }
}

type Reviewed =
  | { kind: 'stopped' }
  | { kind: 'fatal'; message: string }
  | { kind: 'judged'; signal: Extract<ReviewSignal, { kind: string }> };

/** One review: the prompt, the reviewer read-only, its edits reverted, its verdict reported. */
async function runReviewer(
  setup: LoopSetup,
  deps: LoopDeps,
  reviewer: Reviewer,
  round: number,
  maxRounds: number,
): Promise<Reviewed> {
  const { run } = deps;
  await run.ensureAtCheckpoint();
  const checkpoint = run.state.checkpointSha ?? run.baseSha;
  const ctx = engineContext(run.repo, {
    timeoutMs: setup.options.commandTimeoutMs,
    baseEnv: setup.env,
  });
  const diff = await diffText(ctx, run.baseSha, checkpoint);
  const verify = Object.entries(run.state.stories)
    .filter(([, p]) => (p.verify ?? []).length > 0)
    .map(([storyId, p]) => ({ storyId, results: p.verify ?? [] }));
  const { change } = setup;
  const prompt = buildReviewPrompt({
    change: change.name,
    proposal: change.proposal,
    design: change.design,
    requirements: change.requirements,
    diff,
    verify,
    round,
    maxRounds,
  });
  const started = Date.now();
  let costUsd: number | null = null;
  let agentRecorded: Promise<void> = Promise.resolve();
  const id = 'review';
  let output: Awaited<ReturnType<Reviewer['backend']['runAttempt']>>;
  try {
    output = await reviewer.backend.runAttempt({
      prompt,
      cwd: setup.repoRoot,
      signal: deps.stop,
      change: change.name,
      storyId: id,
      attempt: round,
      model: reviewer.name === setup.options.agent ? (setup.options.model ?? undefined) : undefined,
      wallTimeoutMs: setup.options.agentTimeoutMs,
      idleTimeoutMs: setup.options.idleTimeoutMs,
      transcriptPath: transcriptFile(run.paths, id, round),
      promptFilePath: promptFile(run.paths, id, round),
      readOnly: true,
      onEvent: (event) => {
        if (event.type === 'result' && event.costUsd !== null) {
          costUsd = (costUsd ?? 0) + event.costUsd;
        }
      },
      onSpawn: (pgid) => {
        agentRecorded = run.recordAgent(pgid, processIdentity(pgid));
      },
    });
  } catch (error) {
    if (!(error instanceof RalphError)) throw error;
    return { kind: 'fatal', message: error.message };
  } finally {
    await agentRecorded;
  }
  // Whatever the reviewer changed is put back and kept under a ref of its own.
  const put = await run.ensureAtCheckpoint({ as: reviewStoryId(round) });
  const revertedRef = put.repaired ? put.savedRef : null;
  if (output.aborted || deps.stop.aborted) return { kind: 'stopped' };
  if (output.fatal !== null) return { kind: 'fatal', message: output.fatal };
  const answer = withoutEchoedPrompt(output.finalAnswer, prompt);
  const signal: Extract<ReviewSignal, { kind: string }> = parseReviewSignal(answer) ?? {
    kind: 'rejected',
    reasons:
      output.agentError ??
      'the reviewer ended without <promise>APPROVED</promise> or <promise>REJECTED: …</promise>',
  };
  const verdict = {
    round,
    verdict: signal.kind,
    reasons: signal.kind === 'rejected' ? signal.reasons : null,
    scenarios: scenarioVerdicts(answer, change.requirements),
  };
  await run.recordReview(verdict);
  deps.emit({
    type: 'review.finished',
    ...verdict,
    revertedRef,
    costUsd,
    durationMs: Date.now() - started,
  });
  return { kind: 'judged', signal };
}
