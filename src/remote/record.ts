import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunPaths } from '../checkpoint/index.js';
import { commitTree } from '../git/commit.js';
import { git, gitOut, type GitContext } from '../git/git.js';
import { recordRef } from './names.js';
import { redact, type Secret } from '../core/redact.js';

// The run's record on the remote (docs/contract.md, "The record"): a commit whose tree holds
// what another machine needs to continue the run and what a person needs to see how it went.
// Transcripts stay out (an agent's whole output: large, and it may have printed anything);
// prompts are in, the most recent ones, each capped.

export const RECORD_FORMAT = 1;
/** How many prompts the record keeps (the most recent), and how much of each. */
export const RECORD_PROMPTS = { count: 20, maxBytes: 64 * 1024 } as const;

/** The files of a record, by their path in its tree. */
export const RECORD_FILES = {
  state: 'state.json',
  learnings: 'learnings.md',
  about: 'record.json',
  prompts: 'prompts',
} as const;

/** `record.json`: what wrote the record, so a reader can tell formats apart. */
export interface RecordAbout {
  format: number;
  change: string;
  host: string;
  writtenAt: string;
}

/**
 * Writes the run folder's record as a commit (its parent the previous record) and points the
 * local record ref at it. Returns the commit; null when the run has no state yet.
 */
export async function writeRecord(
  ctx: GitContext,
  paths: RunPaths,
  about: RecordAbout & { stateText?: string },
  secrets: readonly Secret[] = [],
): Promise<string | null> {
  if (about.stateText === undefined && !existsSync(paths.state)) return null;
  const scratch = join(paths.dir, 'record-scratch');
  await rm(scratch, { recursive: true, force: true });
  await mkdir(scratch, { recursive: true });
  try {
    const { stateText, ...said } = about;
    const aboutFile = join(scratch, RECORD_FILES.about);
    await writeFile(aboutFile, `${JSON.stringify(said, null, 2)}\n`);
    // The state as the caller read it (the branch is pushed at the checkpoint it names).
    const stateFile = stateText === undefined ? paths.state : join(scratch, RECORD_FILES.state);
    if (stateText !== undefined) await writeFile(stateFile, stateText);
    const top: { name: string; file: string }[] = [
      { name: RECORD_FILES.state, file: stateFile },
      { name: RECORD_FILES.about, file: aboutFile },
    ];
    if (existsSync(paths.learnings))
      top.push({ name: RECORD_FILES.learnings, file: paths.learnings });
    const prompts = await recentPrompts(paths.promptsDir, scratch);
    const all = await Promise.all(
      [...top, ...prompts].map((f) => redactedCopy(f, scratch, secrets)),
    );
    const shas = (
      await gitOut(ctx, ['hash-object', '-w', '--stdin-paths', '--no-filters'], {
        input: `${all.map((f) => f.file).join('\n')}\n`,
        context: 'could not write the run record',
      })
    ).split('\n');
    const entries: TreeEntry[] = all.map((f, i) => ({ name: f.name, sha: shas[i] ?? '' }));
    const topEntries = entries.slice(0, top.length);
    if (prompts.length > 0) {
      const promptTree = await makeTree(ctx, entries.slice(top.length));
      topEntries.push({ name: RECORD_FILES.prompts, sha: promptTree, tree: true });
    }
    const tree = await makeTree(ctx, topEntries);
    const ref = recordRef(about.change);
    const previous = await refSha(ctx, ref);
    const commit = await commitTree(
      ctx,
      tree,
      previous === null ? [] : [previous],
      `ralphtool record: ${about.change}`,
      'could not write the run record',
    );
    await git(ctx, ['update-ref', ref, commit, ...(previous === null ? [] : [previous])], {
      context: 'could not write the run record',
    });
    return commit;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** The text of one file of a record commit; null when the record has no such file. */
export async function readRecordFile(
  ctx: GitContext,
  commit: string,
  name: string,
): Promise<string | null> {
  const result = await git(ctx, ['cat-file', 'blob', `${commit}:${name}`], { allowFailure: true });
  return result.exitCode === 0 ? result.stdout : null;
}

interface TreeEntry {
  name: string;
  sha: string;
  tree?: boolean;
}

async function makeTree(ctx: GitContext, entries: readonly TreeEntry[]): Promise<string> {
  const lines = entries.map((e) =>
    e.tree === true ? `040000 tree ${e.sha}\t${e.name}` : `100644 blob ${e.sha}\t${e.name}`,
  );
  return gitOut(ctx, ['mktree'], {
    input: `${lines.join('\n')}\n`,
    context: 'could not write the run record',
  });
}

async function refSha(ctx: GitContext, ref: string): Promise<string | null> {
  const result = await git(ctx, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], {
    allowFailure: true,
  });
  return result.exitCode === 0 ? result.stdout.trim() : null;
}

/** The most recent prompt files, each as it is or, past the cap, its head copied into scratch. */
async function recentPrompts(
  dir: string,
  scratch: string,
): Promise<{ name: string; file: string }[]> {
  const names = existsSync(dir) ? (await readdir(dir)).filter((n) => n.endsWith('.md')) : [];
  const dated = await Promise.all(
    names.map(async (name) => {
      const info = await stat(join(dir, name));
      return { name, file: join(dir, name), mtime: info.mtimeMs, size: info.size };
    }),
  );
  dated.sort((a, b) => b.mtime - a.mtime || a.name.localeCompare(b.name));
  const kept = dated.slice(0, RECORD_PROMPTS.count);
  kept.sort((a, b) => a.name.localeCompare(b.name));
  return Promise.all(
    kept.map(async (p) => {
      if (p.size <= RECORD_PROMPTS.maxBytes) return { name: p.name, file: p.file };
      const head = (await readFile(p.file)).subarray(0, RECORD_PROMPTS.maxBytes);
      const copy = join(scratch, `prompt-${p.name}`);
      await writeFile(
        copy,
        Buffer.concat([
          head,
          Buffer.from(`\n\n[cut: ${p.size} bytes, the record keeps ${RECORD_PROMPTS.maxBytes}]\n`),
        ]),
      );
      return { name: p.name, file: copy };
    }),
  );
}

/**
 * A copy in scratch of the file with the secrets replaced. Always a copy, even of a file that
 * held none: the agent may still be writing learnings.md, and hashing the file itself later
 * took bytes that were never checked (a token appended in between reached the remote; seen
 * under load, test/system/remote/secrets.test.ts).
 */
async function redactedCopy(
  file: { name: string; file: string },
  scratch: string,
  secrets: readonly Secret[],
): Promise<{ name: string; file: string }> {
  if (secrets.length === 0) return file;
  const clean = redact(await readFile(file.file, 'utf8'), secrets);
  const copy = join(scratch, `redacted-${file.name.replace(/\//g, '_')}`);
  await writeFile(copy, clean);
  return { name: file.name, file: copy };
}
