import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Requirement } from '../core/change.js';
import { RuntimeError } from '../core/errors.js';
import { readOptionalText } from './read-text.js';
import { parseSpec } from './spec-parser.js';
import { errnoCode, messageOf } from '../core/error-details.js';

export { parseSpec } from './spec-parser.js';

interface SpecFile {
  /** Folder path below specs/, POSIX separators: `auth` or `api/login`. */
  capability: string;
  path: string;
}

async function listEntries(dir: string, shownAs: string): Promise<Dirent[]> {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw new RuntimeError(`cannot list ${shownAs}: ${messageOf(error)}`);
  }
}

/**
 * Every `spec.md` below specs/, found the way OpenSpec finds them
 * (`discoverSpecFiles`): flat `specs/<id>/spec.md` and nested
 * `specs/<area>/<id>/spec.md`, dot-folders skipped, symlinked folders not
 * followed, a spec.md directly in specs/ ignored.
 */
async function discoverSpecFiles(specsDir: string, shownAs: string): Promise<SpecFile[]> {
  const found: SpecFile[] = [];
  const walk = async (dir: string, segments: readonly string[]): Promise<void> => {
    const entries = await listEntries(dir, [shownAs, ...segments].join('/'));
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      if (entry.isDirectory()) {
        await walk(join(dir, entry.name), [...segments, entry.name]);
      } else if (entry.name === 'spec.md' && segments.length > 0) {
        found.push({ capability: segments.join('/'), path: join(dir, entry.name) });
      }
    }
  };
  await walk(specsDir, []);
  return found;
}

/** Code-point order, so the output never depends on the locale or on readdir order. */
function byCapability(a: SpecFile, b: SpecFile): number {
  return a.capability < b.capability ? -1 : a.capability > b.capability ? 1 : 0;
}

/**
 * The requirements of every capability of a change, sorted by capability and
 * then in file order. `shownAs` is how the specs folder is named in errors.
 */
export async function readSpecs(specsDir: string, shownAs: string): Promise<Requirement[]> {
  const files = (await discoverSpecFiles(specsDir, shownAs)).sort(byCapability);
  const requirements: Requirement[] = [];
  for (const file of files) {
    const content = await readOptionalText(file.path, `${shownAs}/${file.capability}/spec.md`);
    if (content === null) continue;
    // A loop, not push(...list): spreading a huge list overflows the call stack.
    for (const requirement of parseSpec(content, file.capability)) requirements.push(requirement);
  }
  return requirements;
}
