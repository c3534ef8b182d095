import { ON_PATH, reachable } from '../../core/reach.js';
import { recordedRunMarks } from '../../run/recorded-marks.js';
import { DEFAULT_RUN_OPTIONS } from '../../run/options.js';
import { findOpenSpecRoot } from '../../openspec/root.js';
import { changeRelativePath, invalidChangeFolders, listChanges } from '../../openspec/changes.js';
import type { CommandIO } from '../io.js';
import { plainColumns } from '../../format/plain-width.js';
import { changeListCells, renderChangeList } from '../render/list.js';
import { assertDirectory } from './cwd.js';

/** `ralphtool list [--json]`: the changes of the repository with their progress. */
export async function listCommand(
  io: CommandIO,
  opts: { cwd: string; json: boolean },
): Promise<number> {
  assertDirectory(opts.cwd);
  const root = findOpenSpecRoot(opts.cwd);
  // Recorded runs that wait for the user: marked beside their change (a kept one, where).
  // Asked first, so that git finds the repository while the changes are read.
  const marksAsked = opts.json
    ? null
    : recordedRunMarks(opts.cwd, DEFAULT_RUN_OPTIONS.commandTimeoutMs, io.env);
  // Reading the changes may fail first: the question's own failure is then nobody's to report.
  marksAsked?.catch(() => undefined);
  const changes = await listChanges(root);
  const skipped = await invalidChangeFolders(root);
  if (marksAsked === null) {
    io.stdout.write(`${JSON.stringify({ changes, skipped }, null, 2)}\n`);
  } else {
    const cells = changeListCells(changes, io.style, new Date(), await marksAsked);
    io.stdout.write(
      reachable(renderChangeList(cells, await measureFor(cells)), io.reach ?? ON_PATH),
    );
    for (const name of skipped) {
      io.stderr.write(
        `ralphtool: skipped ${changeRelativePath(name)}: not a valid change name (lowercase kebab-case, e.g. add-auth); rename the folder to run it\n`,
      );
    }
  }
  return 0;
}

/**
 * How to measure the table's cells: without string-width when they are all plain (ASCII names,
 * drawn bars, colour codes: the usual list), which spares loading it; else with it.
 */
async function measureFor(
  cells: readonly (readonly string[])[] | null,
): Promise<(cell: string) => number> {
  const plain = (cells ?? []).every((row) => row.every((cell) => plainColumns(cell) !== null));
  if (plain) return (cell) => plainColumns(cell) ?? 0;
  return (await import('../../format/text.js')).columns;
}
