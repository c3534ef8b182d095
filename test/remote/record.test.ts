import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runPaths, type RunPaths } from '../../src/checkpoint/index.js';
import type { GitContext } from '../../src/git/git.js';
import { recordRef } from '../../src/remote/names.js';
import { gatherRecordFiles } from '../../src/remote/record-files.js';
import {
  RECORD_FORMAT,
  RECORD_PROMPTS,
  newRecordMemo,
  writeRecord,
} from '../../src/remote/record.js';
import { TIMEOUT_MS, cleanEnv, repoPerTest, type TempRepo } from '../git/helpers.js';

// The run's record (docs/contract.md, "The record"), written with one fast-import: its tree
// holds the state as given, record.json, the learnings and the 20 most recent prompts each cut
// at 64 KiB, every file redacted; a file unchanged since the process's last record is named by
// its blob, never read again, and a changed one always is. Real git; the clock is injected.

const makeRepo = repoPerTest();
const CHANGE = 'rec';

interface World {
  repo: TempRepo;
  ctx: GitContext;
  paths: RunPaths;
}

function world(): World {
  const repo = makeRepo();
  const paths = runPaths(join(repo.dir, '.git'), CHANGE);
  mkdirSync(paths.promptsDir, { recursive: true });
  return { repo, paths, ctx: { cwd: repo.dir, timeoutMs: TIMEOUT_MS, baseEnv: cleanEnv() } };
}

const about = { format: RECORD_FORMAT, change: CHANGE, host: 'h', writtenAt: 'now' };

describe('the run record', () => {
  it('holds the state given, record.json, the learnings and the 20 newest prompts, each cut, all redacted', async () => {
    const w = world();
    const token = 'sk-live-0123456789abcdef';
    writeFileSync(w.paths.learnings, `# learnings\nthe key is ${token}\n`);
    for (let i = 1; i <= 25; i++) {
      const file = join(w.paths.promptsDir, `${i}-1.md`);
      writeFileSync(file, i === 25 ? 'x'.repeat(RECORD_PROMPTS.maxBytes + 10) : `prompt ${i}\n`);
    }
    // Modification times decide which prompts are the most recent: 6..25.
    const { utimesSync } = await import('node:fs');
    for (let i = 1; i <= 25; i++) {
      utimesSync(join(w.paths.promptsDir, `${i}-1.md`), 1_000 + i, 1_000 + i);
    }
    const secrets = [{ name: 'API_SECRET', value: token }];
    const commit = await writeRecord(
      w.ctx,
      w.paths,
      { ...about, stateText: `{"said":"${token}"}\n` },
      secrets,
    );
    const ref = recordRef(CHANGE);
    expect(w.repo.git('rev-parse', ref)).toBe(commit);
    const names = w.repo.git('ls-tree', '-r', '--name-only', ref).split('\n');
    const prompts = Array.from({ length: 20 }, (_, k) => `prompts/${k + 6}-1.md`).sort();
    expect(names.sort()).toEqual(['learnings.md', 'record.json', 'state.json', ...prompts].sort());
    for (const name of names) expect(w.repo.git('show', `${ref}:${name}`)).not.toContain(token);
    expect(w.repo.git('show', `${ref}:state.json`)).toContain('[redacted $API_SECRET]');
    expect(JSON.parse(w.repo.git('show', `${ref}:record.json`))).toEqual(about);
    const cut = w.repo.git('show', `${ref}:prompts/25-1.md`);
    expect(cut.startsWith('x'.repeat(RECORD_PROMPTS.maxBytes))).toBe(true);
    expect(cut).toContain(`[cut: ${RECORD_PROMPTS.maxBytes + 10} bytes`);
    // The next record's parent is this one.
    const next = await writeRecord(w.ctx, w.paths, { ...about, stateText: '{}\n' });
    expect(w.repo.git('rev-parse', `${next}^`)).toBe(commit);
  });

  it('names a file unchanged since the last record by its blob, and reads a changed one again', async () => {
    const w = world();
    const memo = newRecordMemo(() => Date.now() + 60_000); // every file old enough to trust
    writeFileSync(w.paths.learnings, 'first\n');
    writeFileSync(join(w.paths.promptsDir, '1-1.md'), 'one\n');
    writeFileSync(join(w.paths.promptsDir, '2-1.md'), 'two\n');
    await writeRecord(w.ctx, w.paths, { ...about, stateText: '{}\n' }, [], { memo });
    // Same size, other bytes: a rewrite is seen whatever its size.
    writeFileSync(w.paths.learnings, 'FIRST\n');
    const gathered = await gatherRecordFiles(w.paths, [], 'learnings.md', 'prompts', [], memo);
    const how = Object.fromEntries(
      gathered.files.map((f) => [f.path, 'blob' in f ? 'named' : 'read']),
    );
    expect(how).toEqual({
      'learnings.md': 'read',
      'prompts/1-1.md': 'named',
      'prompts/2-1.md': 'named',
    });
    const commit = await writeRecord(w.ctx, w.paths, { ...about, stateText: '{}\n' }, [], {
      memo,
    });
    expect(w.repo.git('show', `${commit}:learnings.md`)).toBe('FIRST');
    expect(w.repo.git('show', `${commit}:prompts/1-1.md`)).toBe('one');
    // Other secrets: every file is read again (its redacted bytes may differ).
    const redacting = await gatherRecordFiles(
      w.paths,
      [],
      'learnings.md',
      'prompts',
      [{ name: 'A_TOKEN', value: 'one-two-three' }],
      memo,
    );
    expect(redacting.files.every((f) => 'data' in f)).toBe(true);
  });

  it('trusts no file changed within the last 2 s: it is read again next time', async () => {
    const w = world();
    const memo = newRecordMemo(); // the real clock: the files were just written
    writeFileSync(join(w.paths.promptsDir, '1-1.md'), 'one\n');
    await writeRecord(w.ctx, w.paths, { ...about, stateText: '{}\n' }, [], { memo });
    const gathered = await gatherRecordFiles(w.paths, [], 'learnings.md', 'prompts', [], memo);
    expect(gathered.files.map((f) => 'data' in f)).toEqual([true]);
  });
});
