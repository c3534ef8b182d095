import type { MergeConflict, MergeReport } from '../../run/many/many-types.js';
import { oneLine } from '../../format/text.js';

/** At most this many colliding files named in a line; the rest counted. */
const FILES_SHOWN = 5;

/**
 * The merge check as plain lines, for the headless output and the end of a multi-run
 * (docs/contract.md, "The merge check"): one line for the outcome, one per colliding pair.
 */
export function renderMergeReport(report: MergeReport): string[] {
  const against = `merge check against ${oneLine(report.against)}:`;
  const names = report.checked.map((name) => oneLine(name));
  if (names.length === 0) return [`${against} no branch has a story to apply`];
  if (report.order !== null) {
    if (names.length === 1) return [`${against} ${names[0] ?? ''} applies cleanly`];
    return [
      `${against} ${names.join(', ')} apply cleanly in this order: ${report.order.map((name) => oneLine(name)).join(', ')}`,
    ];
  }
  if (report.conflicts.length === 0) {
    // Every pair merges, but the branches do not all go together in any order.
    return [
      `${against} ${names.join(', ')} each apply cleanly alone, not all together in any order: apply one at a time and merge the rest by hand`,
    ];
  }
  return [
    `${against} ${names.join(', ')} checked, ${plural(report.conflicts.length, 'conflict')}`,
    ...report.conflicts.map((conflict) => conflictLine(report, conflict)),
  ];
}

function conflictLine(report: MergeReport, conflict: MergeConflict): string {
  const files = fileList(conflict.files);
  const a = oneLine(conflict.a);
  // A conflict with the user's work tree names their branch; two changes are both checked.
  if (conflict.b === report.against && !report.checked.includes(conflict.b)) {
    return `${a} conflicts with your work tree (${oneLine(report.against)}) in ${files}: commit or stash your changes, then merge it by hand (\`git merge --squash ralph/${a}\`)`;
  }
  return `${a} and ${oneLine(conflict.b)} conflict in ${files}: apply one, then merge the other by hand`;
}

function fileList(files: readonly string[]): string {
  const shown = files.slice(0, FILES_SHOWN).map((file) => oneLine(file));
  const more = files.length - shown.length;
  return more > 0 ? `${shown.join(', ')} and ${plural(more, 'more file')}` : shown.join(', ');
}

function plural(count: number, noun: string): string {
  return `${String(count)} ${noun}${count === 1 ? '' : 's'}`;
}
