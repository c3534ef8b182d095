import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { git, gitOut } from '../git/git.js';
import type { GitContext } from '../git/git.js';
import { resolveCommit, treeOf } from '../git/repo.js';
import { snapshotWorkTree } from '../git/snapshot.js';
import { indexFile, scratchContext } from './run-git.js';
import type { RunGit } from './run-git.js';

/**
 * An agent that checks out another branch (`git checkout main`, `git switch -c x main`,
 * `git reset --hard main`) mid-attempt makes git rewrite the work tree to that branch: files
 * the checkpoint holds and the branch does not (the user's uncommitted and untracked work,
 * which the "initial state" commit took in) disappear from the work tree, others go back to
 * the branch's version. Taking the work tree as it is would record all of that as the story's
 * own deletions. So before an accept, the agent's changes are taken relative to the commit it
 * switched to (known from HEAD's reflog) and laid over the checkpoint's tree; the files the
 * switch alone changed get the checkpoint's version back. A file that both the switch and the
 * agent changed is merged line by line, the agent's side winning conflicts.
 */
export async function undoBranchSwitch(g: RunGit, checkpoint: string): Promise<void> {
  const { ctx } = g;
  const base = await switchTarget(ctx, checkpoint);
  if (base === null) return;
  const baseTree = await treeOf(ctx, base);
  const checkpointTree = await treeOf(ctx, checkpoint);
  if (baseTree === checkpointTree) return;
  const headTree =
    (await resolveCommit(ctx, 'HEAD')) === null ? baseTree : await treeOf(ctx, 'HEAD');
  const workTree = await snapshotWorkTree(ctx, {
    scratchDir: g.paths.dir,
    startIndex: indexFile(g.repo),
    baseTree: headTree,
  });
  const agentChanges = await changedEntries(ctx, baseTree, workTree);
  const index = join(g.paths.dir, `switch-index-${process.pid}-${randomBytes(4).toString('hex')}`);
  const env = { GIT_INDEX_FILE: index };
  try {
    await git(ctx, ['read-tree', checkpointTree], { env });
    const lines: string[] = [];
    for (const change of agentChanges) {
      const ours = await entryOf(ctx, checkpointTree, change.path);
      const bothChanged = ours !== null && !sameEntry(ours, change.old);
      const merged = bothChanged ? await mergeFile(g, ours.sha, change) : null;
      const entry = merged ?? change.now;
      lines.push(
        entry === null
          ? `0 ${'0'.repeat(40)}\t${change.path}`
          : `${entry.mode} ${entry.sha}\t${change.path}`,
      );
    }
    if (lines.length > 0) {
      await git(ctx, ['update-index', '-z', '--index-info'], {
        env,
        input: lines.map((line) => `${line}\0`).join(''),
      });
    }
    const target = await gitOut(ctx, ['write-tree'], { env });
    await writeFiles(g, env, workTree, target);
  } finally {
    await rm(index, { force: true });
  }
}

/**
 * The commit the agent last switched to during this attempt: the newest `checkout:` or
 * `reset:` entry of HEAD's reflog since HEAD was last at the checkpoint that moved HEAD to
 * another commit (`checkout -b x` where HEAD is changes no file). Null when it never left the
 * checkpoint that way (or the reflog is off: then nothing can be told).
 */
async function switchTarget(ctx: GitContext, checkpoint: string): Promise<string | null> {
  const out = await git(ctx, ['log', '-g', '-n', '500', '--format=%H %gs', 'HEAD', '--'], {
    allowFailure: true,
  });
  if (out.exitCode !== 0) return null;
  const entries = out.stdout
    .split('\n')
    .map((line) => ({
      sha: line.slice(0, line.indexOf(' ')),
      subject: line.slice(line.indexOf(' ') + 1),
    }))
    .filter((entry) => entry.sha !== '');
  let target: string | null = null;
  for (const [i, entry] of entries.entries()) {
    if (entry.sha === checkpoint) return target;
    const moved = entry.sha !== entries[i + 1]?.sha; // the older entry is where HEAD came from
    const switched = entry.subject.startsWith('checkout:') || entry.subject.startsWith('reset:');
    if (target === null && switched && moved) target = entry.sha;
  }
  return null;
}

interface Entry {
  mode: string;
  sha: string;
}

interface Changed {
  path: string;
  old: Entry | null;
  now: Entry | null;
}

const NULL_SHA = /^0+$/;

async function changedEntries(ctx: GitContext, from: string, to: string): Promise<Changed[]> {
  const out = await git(ctx, ['diff-tree', '-r', '-z', '--no-renames', from, to]);
  const fields = out.stdout.split('\0');
  const changes: Changed[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const [oldMode, newMode, oldSha, newSha] = (fields[i] ?? '').replace(/^:/, '').split(' ');
    const path = fields[i + 1] ?? '';
    if (!oldMode || !newMode || !oldSha || !newSha || path === '') continue;
    changes.push({
      path,
      old: NULL_SHA.test(oldSha) ? null : { mode: oldMode, sha: oldSha },
      now: NULL_SHA.test(newSha) ? null : { mode: newMode, sha: newSha },
    });
  }
  return changes;
}

async function entryOf(ctx: GitContext, tree: string, path: string): Promise<Entry | null> {
  const out = await git(ctx, ['ls-tree', '-z', '--full-tree', tree, '--', path], {
    env: { GIT_LITERAL_PATHSPECS: '1' },
  });
  const match = /^(\d+) \w+ ([0-9a-f]+)\t/.exec(out.stdout);
  return match?.[1] && match[2] ? { mode: match[1], sha: match[2] } : null;
}

function sameEntry(a: Entry | null, b: Entry | null): boolean {
  return a?.mode === b?.mode && a?.sha === b?.sha;
}

/**
 * A file both the switch and the agent changed: `git merge-file --theirs` of the three
 * versions, the agent's winning conflicts. Null (take the agent's file) when one side is not a
 * regular file or git cannot merge it (binary).
 */
async function mergeFile(g: RunGit, ours: string, change: Changed): Promise<Entry | null> {
  const { old, now } = change;
  if (old === null || now === null || !now.mode.startsWith('100')) return null;
  // The three versions are unpacked in the run folder, never in the work tree.
  const ctx = scratchContext(g.ctx, g.paths.dir);
  const files: string[] = [];
  try {
    for (const blob of [ours, old.sha, now.sha]) {
      files.push(join(g.paths.dir, await gitOut(ctx, ['unpack-file', blob])));
    }
    const [oursFile, baseFile, theirsFile] = files as [string, string, string];
    const merged = await git(
      ctx,
      ['merge-file', '-q', '--theirs', oursFile, baseFile, theirsFile],
      {
        allowFailure: true,
      },
    );
    if (merged.exitCode !== 0) return null;
    // The blobs were in git's form already: no filters on the way back in.
    const sha = await gitOut(ctx, ['hash-object', '-w', '--no-filters', '--', oursFile]);
    return { mode: now.mode, sha };
  } finally {
    for (const file of files) await rm(file, { force: true });
  }
}

/** Makes the work tree's files `target` where they are `current` now (ignored files untouched). */
async function writeFiles(
  g: RunGit,
  env: Record<string, string>,
  current: string,
  target: string,
): Promise<void> {
  const changes = await changedEntries(g.ctx, current, target);
  const write = changes.filter((c) => c.now !== null).map((c) => c.path);
  for (const change of changes) {
    if (change.now === null) await rm(join(g.repo.root, change.path), { force: true });
  }
  if (write.length > 0) {
    await git(g.ctx, ['checkout-index', '-f', '-q', '-z', '--stdin'], {
      env,
      input: write.map((path) => `${path}\0`).join(''),
    });
  }
}
