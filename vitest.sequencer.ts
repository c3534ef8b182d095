import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Longest files first, so that the last minute of the suite is not one slow file running alone
 * while the other workers sit idle. Vitest does this from its cache of earlier runs; a fresh
 * clone (CI, a new contributor) has none, and would take the files in name order. There the
 * seconds per file of the slowest files and folders stand in, measured 2026-11-28 on 2 cores
 * with 3 workers (the rest go by size).
 */
const SECONDS_WITHOUT_CACHE: readonly (readonly [string, number])[] = [
  // the contributor tier
  ['test/checkpoint/attempt-', 14],
  ['test/smoke/demo', 13],
  ['test/agents/backends', 12],
  ['test/agents/stream', 8],
  ['test/smoke/', 5],
  ['test/checkpoint/', 5],
  ['test/run/', 3],
  // the system tier
  ['test/system/run/fallback-agents', 50],
  ['test/system/remote/claims', 48],
  ['test/system/faults/limit-wait', 47],
  ['test/system/terminal/tui-signals', 39],
  ['test/system/faults/live-locks', 39],
  ['test/system/faults/ways-out', 38],
  ['test/system/faults/attributes', 30],
  ['test/system/run/limit-wait', 30],
  ['test/system/run/notify', 27],
  ['test/system/worktree/many-', 23],
  ['test/system/faults/', 14],
  ['test/system/', 8],
  // the compat tier
  ['test/compat/opencode', 54],
  ['test/compat/gemini-loop', 22],
  ['test/compat/codex-loop', 21],
  ['test/compat/claude-loop', 16],
];

export class SlowestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const cache = this.ctx.cache;
    const seconds = (file: TestSpecification): number => {
      const path = relative(this.ctx.config.root, file.moduleId);
      const cached = cache.getFileTestResults(`${file.project.name}:${path}`);
      if (cached) return cached.duration / 1000;
      return SECONDS_WITHOUT_CACHE.find(([prefix]) => path.startsWith(prefix))?.[1] ?? 0;
    };
    const bySize = await super.sort(files);
    return bySize
      .map((file, order) => ({ file, order, seconds: seconds(file) }))
      .sort((a, b) => b.seconds - a.seconds || a.order - b.order)
      .map(({ file }) => file);
  }
}
