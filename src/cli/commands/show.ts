import { findOpenSpecRoot } from '../../openspec/root.js';
import { readChange } from '../../openspec/changes.js';
import type { CommandIO } from '../io.js';
import { renderChange } from '../render/show.js';
import { assertDirectory } from './cwd.js';

/** `ralphtool show <change> [--json]`: stories, tasks and scenarios of one change. */
export async function showCommand(
  io: CommandIO,
  opts: { cwd: string; change: string; json: boolean },
): Promise<number> {
  assertDirectory(opts.cwd);
  const root = findOpenSpecRoot(opts.cwd);
  const change = await readChange(root, opts.change);
  if (opts.json) {
    io.stdout.write(`${JSON.stringify(change, null, 2)}\n`);
  } else {
    io.stdout.write(renderChange(change, io.style));
  }
  return 0;
}
