import { readFile } from 'node:fs/promises';
import type { RunPaths } from '../checkpoint/index.js';
import { committerIdent, importCommit } from '../git/fast-import.js';
import { git, type GitContext } from '../git/git.js';
import { recordRef } from './names.js';
import type { Secret } from '../core/redact.js';
import { gatherRecordFiles, newRecordMemo, type RecordMemo } from './record-files.js';

export { RECORD_PROMPTS, newRecordMemo, type RecordMemo } from './record-files.js';

// The run's record on the remote (docs/contract.md, "The record"): a commit whose tree holds
// what another machine needs to continue the run and what a person needs to see how it went.
// Transcripts stay out (an agent's whole output: large, and it may have printed anything);
// prompts are in, the most recent ones, each capped. Written with one `git fast-import`
// (git/fast-import.ts), its files gathered and redacted in memory (record-files.ts).

export const RECORD_FORMAT = 1;

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
  options: {
    /** The local record ref's commit as just read (null: none); absent: read here. */
    previous?: string | null;
    /** What this process remembers between its records (the committer, the blobs written). */
    memo?: RecordMemo;
  } = {},
): Promise<string | null> {
  const { stateText, ...said } = about;
  // The state as the caller read it (the branch is pushed at the checkpoint it names).
  const state = stateText ?? (await readFile(paths.state, 'utf8').catch(() => null));
  if (state === null) return null;
  const memo = options.memo ?? newRecordMemo();
  const ref = recordRef(about.change);
  const previous = options.previous !== undefined ? options.previous : await refSha(ctx, ref);
  const gathered = await gatherRecordFiles(
    paths,
    [
      { name: RECORD_FILES.state, text: state },
      { name: RECORD_FILES.about, text: `${JSON.stringify(said, null, 2)}\n` },
    ],
    RECORD_FILES.learnings,
    RECORD_FILES.prompts,
    secrets,
    memo,
  );
  memo.committer ??= await committerIdent(ctx);
  const written = await importCommit(
    ctx,
    {
      ref,
      parent: previous,
      message: `ralphtool record: ${about.change}\n`,
      files: gathered.files,
      committer: memo.committer,
    },
    'could not write the run record',
  );
  gathered.remember(written.blobs);
  return written.commit;
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

async function refSha(ctx: GitContext, ref: string): Promise<string | null> {
  const result = await git(ctx, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], {
    allowFailure: true,
  });
  return result.exitCode === 0 ? result.stdout.trim() : null;
}
