import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Longest files first, so that the last minute of the suite is not one slow file running alone
 * while the other workers sit idle. Vitest does this from its cache of earlier runs; a fresh
 * clone (CI, a new contributor) has none, and would take the files in name order. There the
 * measured seconds per file of the slowest folders stand in (2 cores, 3 workers; the rest of
 * the files take under 5 s each and go by size).
 */
const SECONDS_WITHOUT_CACHE: readonly (readonly [string, number])[] = [
  ['test/faults/crash-', 18],
  ['test/faults/agent-git', 18],
  ['test/faults/commands', 15],
  ['test/faults/user-edits', 14],
  ['test/process/lifecycle', 18],
  ['test/e2e/claude-loop', 17],
  ['test/e2e/codex-loop', 60],
  ['test/demo/demo-cli', 17],
  ['test/run/limits', 14],
  ['test/faults/', 7],
  ['test/demo/', 8],
  ['test/e2e/', 6],
  ['test/run/', 4],
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
