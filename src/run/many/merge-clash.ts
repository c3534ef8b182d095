import type { MergeReport } from './many-types.js';

/**
 * What the cleanup of `change` would collide with, by the merge check: the other changes and
 * (as `MergeReport.against`) the user's work tree, with the files; empty when nothing. With
 * `--on-complete cleanup`, a change that collides is kept on its branch rather than brought
 * home (docs/contract.md, "Several changes at once"): neither side of a pair is applied, so
 * what lands in the user's work tree does not depend on which run ended first.
 */
export function clashesOf(
  report: MergeReport | null,
  change: string,
): { with: string; files: string[] }[] {
  if (report === null) return [];
  return report.conflicts.flatMap((c) =>
    c.a === change
      ? [{ with: c.b, files: c.files }]
      : c.b === change
        ? [{ with: c.a, files: c.files }]
        : [],
  );
}
