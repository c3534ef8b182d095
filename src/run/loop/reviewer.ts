import { createBackend, type AgentName } from '../../agents/index.js';
import { assertRunPreflight } from '../../agents/preflight.js';
import type { AgentBackend } from '../../agents/types.js';
import type { Reviewer } from '../loop-types.js';
import type { RunOptions } from '../options.js';

/**
 * The reviewer's backend, its program checked before anything changes: the run's own agent
 * (`--review`; `own` is then that backend), another agent (`--review-agent`) or a program
 * (`--review-command`, found from `baseDir` as `--agent-command` is). Null without a review.
 */
export function reviewerOf(
  options: RunOptions,
  own: AgentBackend,
  env: NodeJS.ProcessEnv,
  baseDir: string,
): Reviewer | null {
  const review = options.review;
  if (review === null || options.maxReviewRounds === 0) return null;
  if (review === 'agent') return { backend: own, name: options.agent };
  const agent = review as AgentName;
  const agentCommand = agent === 'command' ? (options.reviewCommand ?? undefined) : undefined;
  const choice = { agent, ...(agentCommand === undefined ? {} : { agentCommand }) };
  assertRunPreflight({ ...choice, verify: [] }, env, baseDir);
  return { backend: createBackend({ ...choice, baseDir }, env), name: agent };
}
