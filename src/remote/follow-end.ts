import type { CompletionChoice } from '../core/events.js';
import { ralphBranch, type RunState } from '../checkpoint/index.js';
import { git, type GitContext } from '../git/git.js';
import { branchSha } from '../git/repo.js';

/**
 * `finish --from` when the run ended on the remote while this machine's copy was behind (its
 * copy already set aside, set-aside.ts): this repository ends the same way. A keep leaves the
 * remote's `ralph/<change>` here (fetched: one commit per story); a cleanup gave the work back on
 * the machine that ran it, so the branch here goes (saved with the copy). Either way this work
 * tree goes back to where the copy started. Returns the line that says so.
 */
export async function followRemoteEnd(
  ctx: GitContext,
  req: { remote: string; change: string; choice: CompletionChoice; host: string; at: string },
  local: RunState,
): Promise<string> {
  const branch = ralphBranch(req.change);
  if (req.choice === 'cleanup') {
    const tip = await branchSha(ctx, branch);
    if (tip !== null) {
      await git(ctx, ['update-ref', '-d', `refs/heads/${branch}`, tip], {
        context: `could not delete ${branch}`,
      });
    }
  }
  const back = await backToStart(ctx, local);
  const how =
    req.choice === 'keep'
      ? `${branch} here is its kept branch, one commit per story, as on ${req.remote}`
      : `its work was given back on ${req.host}; ${req.remote}'s ${branch} holds its last push`;
  return `the run of ${req.change} ended on ${req.remote} (${req.choice}, by ${req.host} at ${req.at}): ${how}; this work tree is back on ${back}`;
}

/** Switches to the branch (or commit) the copy started from, made again when it is gone. */
async function backToStart(ctx: GitContext, local: RunState): Promise<string> {
  const original = local.originalBranch;
  const at = local.originalSha ?? local.baseSha;
  if (original.kind === 'detached' || (original.kind === 'unborn' && at === null)) {
    const sha = original.kind === 'detached' ? original.sha : '';
    if (sha !== '') {
      await git(ctx, ['switch', '--quiet', '--detach', sha], { context: 'could not switch back' });
    }
    return sha === '' ? 'the commit it was on' : sha.slice(0, 12);
  }
  const exists = (await branchSha(ctx, original.name)) !== null;
  const args =
    exists || at === null
      ? ['switch', '--quiet', '--', original.name]
      : ['switch', '--quiet', '-c', original.name, at];
  await git(ctx, args, { context: `could not switch back to ${original.name}` });
  return original.name;
}
