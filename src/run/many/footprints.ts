import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { footprintOf, type Footprint } from '../../core/footprint.js';
import {
  attemptRefTips,
  engineContext,
  ralphBranch,
  readRunState,
  runPaths,
} from '../../checkpoint/index.js';
import type { GitContext } from '../../git/git.js';
import { changedPaths } from '../../git/raw-files.js';
import { branchSha, locateRepo } from '../../git/repo.js';
import { changePaths } from '../../openspec/changes.js';
import { findOpenSpecRoot } from '../../openspec/root.js';

export interface FootprintRequest {
  /** Inside the user's work tree (where the runs start). */
  cwd: string;
  changes: readonly string[];
  timeoutMs: number;
  env: NodeJS.ProcessEnv;
}

/**
 * Each change's footprint (core/footprint.ts) before several runs start: the paths its texts
 * (proposal, design, tasks, specs: every `.md` of its folder) name, and for a change run before,
 * the files its branch and its saved attempts touched since its start. An estimate: whatever
 * cannot be read adds nothing (a change with an empty footprint waits for no one).
 */
export async function estimateFootprints(req: FootprintRequest): Promise<Map<string, Footprint>> {
  const root = findOpenSpecRoot(req.cwd);
  const repo = await locateRepo({ cwd: req.cwd, timeoutMs: req.timeoutMs, baseEnv: req.env });
  const ctx =
    repo === null ? null : engineContext(repo, { timeoutMs: req.timeoutMs, baseEnv: req.env });
  const footprints = new Map<string, Footprint>();
  for (const change of req.changes) {
    const texts = await changeTexts(changePaths(root, change).dir);
    const touched =
      repo === null || ctx === null
        ? []
        : await touchedBefore(ctx, runPaths(repo.gitCommonDir, change).state, change);
    footprints.set(change, footprintOf(texts, touched));
  }
  return footprints;
}

async function changeTexts(dir: string): Promise<string[]> {
  const names = await readdir(dir, { recursive: true }).catch(() => [] as string[]);
  const texts: string[] = [];
  for (const name of names.filter((n) => n.endsWith('.md')).sort()) {
    const text = await readFile(join(dir, name), 'utf8').catch(() => null);
    if (text !== null) texts.push(text);
  }
  return texts;
}

/** The files a recorded run of the change touched: its branch and saved attempts since its start. */
async function touchedBefore(
  ctx: GitContext,
  stateFile: string,
  change: string,
): Promise<string[]> {
  try {
    const base = (await readRunState(stateFile))?.baseSha ?? null;
    if (base === null) return [];
    const tips = [
      await branchSha(ctx, ralphBranch(change)),
      ...(await attemptRefTips(ctx, change)).values(),
    ].filter((sha): sha is string => sha !== null);
    const touched = new Set<string>();
    for (const tip of tips)
      for (const path of await changedPaths(ctx, base, tip)) touched.add(path);
    return [...touched];
  } catch {
    // An estimate: a record or a ref that cannot be read adds nothing.
    return [];
  }
}
