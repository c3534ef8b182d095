import type { Story } from '../../core/change.js';
import { checkpointBody } from '../../core/checkpoint-body.js';
import { redact } from '../../core/redact.js';
import type { LoopDeps, LoopSetup } from '../loop-types.js';
import type { AttemptResult } from './attempt.js';

/**
 * The accepted checkpoint's commit body (core/checkpoint-body.ts); in a run that pushes, with
 * the secrets' values replaced, as everything else that leaves the machine.
 */
export async function checkpointBodyOf(
  setup: LoopSetup,
  deps: LoopDeps,
  story: Story,
  attempt: number,
  result: AttemptResult,
): Promise<string> {
  const progress = deps.run.progressOf(story.id);
  const body = checkpointBody({
    change: setup.change.name,
    // Accepted: every task of the story is ticked.
    story: { ...story, tasks: story.tasks.map((task) => ({ ...task, done: true })) },
    attempt,
    failures: progress.failures ?? [],
    verify: result.verify ?? [],
    flakes: progress.flakes ?? 0,
    testChanges: progress.testChanges ?? [],
  });
  const secrets = deps.pushedSecrets === undefined ? [] : await deps.pushedSecrets();
  return redact(body, secrets);
}
