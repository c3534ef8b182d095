import { findOpenSpecRoot } from '../../spec/root.js';
import { listChanges } from '../../spec/changes.js';
import type { CommandIO } from '../io.js';
import { renderChangeList } from '../render/list.js';
import { assertDirectory } from './cwd.js';

/** `ralphtool list [--json]`: the changes of the repository with their progress. */
export async function listCommand(
  io: CommandIO,
  opts: { cwd: string; json: boolean },
): Promise<number> {
  assertDirectory(opts.cwd);
  const root = findOpenSpecRoot(opts.cwd);
  const changes = await listChanges(root);
  if (opts.json) {
    io.stdout.write(`${JSON.stringify({ changes }, null, 2)}\n`);
  } else {
    io.stdout.write(renderChangeList(changes, io.style, new Date()));
  }
  return 0;
}
