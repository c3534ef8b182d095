import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { errnoCode } from '../../core/error-details.js';
import { runPaths, runsRoot, writeFileWhole } from '../../checkpoint/index.js';
import { hostname } from 'node:os';
import { processStartTime } from '../../process/proc.js';
import { holderAlive } from '../lock.js';

/**
 * The runs one `run a b c` (or `run --all`) was asked for, recorded before any starts, in
 * `.git/ralphtool/batch.json` (0600, never pushed: the flags may hold notification URLs): what
 * `resume --all` needs to start the ones that never began after a crash, with the options they
 * were asked for. When the command ends, only the changes that never started stay in it (none:
 * the file goes).
 */
const batchSchema = z.object({
  version: z.literal(1),
  pid: z.number().int(),
  host: z.string(),
  /** The command's process start time, guarding against a reused pid. */
  startTime: z.string().nullable(),
  startedAt: z.string(),
  changes: z.array(z.string()),
  /** The command line's run flags, as the CLI read them (it alone reads them back). */
  flags: z.record(z.string(), z.unknown()),
});

export type BatchRecord = z.infer<typeof batchSchema>;

function batchFile(gitCommonDir: string): string {
  return join(runsRoot(gitCommonDir), 'batch.json');
}

export async function recordBatch(
  gitCommonDir: string,
  changes: readonly string[],
  flags: Record<string, unknown>,
): Promise<void> {
  const record: BatchRecord = {
    version: 1,
    pid: process.pid,
    host: hostname(),
    startTime: processStartTime(process.pid),
    startedAt: new Date().toISOString(),
    changes: [...changes],
    flags,
  };
  await writeWhole(batchFile(gitCommonDir), record);
}

/** At the end of the command: keeps the changes that never started, or removes the record. */
export async function settleBatch(gitCommonDir: string): Promise<void> {
  const batch = await readBatch(gitCommonDir);
  if (batch === null || batch.pid !== process.pid) return;
  const left = neverStarted(gitCommonDir, batch);
  if (left.length === 0) await rm(batchFile(gitCommonDir), { force: true });
  else await writeWhole(batchFile(gitCommonDir), { ...batch, changes: left });
}

/**
 * For `resume --all`: the batch whose command is no longer running, with the changes of it that
 * never started (no run recorded); null when there is none.
 */
export async function unstartedBatch(
  gitCommonDir: string,
): Promise<{ batch: BatchRecord; changes: string[] } | null> {
  const batch = await readBatch(gitCommonDir);
  if (batch === null || holderAlive({ ...batch, change: '', since: batch.startedAt })) return null;
  const changes = neverStarted(gitCommonDir, batch);
  return changes.length === 0 ? null : { batch, changes };
}

/** Once `resume --all` has started them, they are runs of their own: the record goes. */
export async function forgetBatch(gitCommonDir: string): Promise<void> {
  await rm(batchFile(gitCommonDir), { force: true });
}

function neverStarted(gitCommonDir: string, batch: BatchRecord): string[] {
  return batch.changes.filter((change) => !existsSync(runPaths(gitCommonDir, change).state));
}

async function readBatch(gitCommonDir: string): Promise<BatchRecord | null> {
  let text: string;
  try {
    text = await readFile(batchFile(gitCommonDir), 'utf8');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return null;
    throw error;
  }
  const parsed = batchSchema.safeParse(JSON.parse(text) as unknown);
  return parsed.success ? parsed.data : null;
}

async function writeWhole(file: string, record: BatchRecord): Promise<void> {
  await writeFileWhole(file, `${JSON.stringify(record, null, 2)}\n`, 0o600);
}
