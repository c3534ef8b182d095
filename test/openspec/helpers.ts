import { cp, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The OpenSpec fixture corpus vendored in the repository (test/fixtures/openspec-repo, MIT). */
export const FIXTURE_CHANGES = fileURLToPath(
  new URL('../fixtures/openspec-repo/changes', import.meta.url),
);

/** A fresh temp folder for one test; remove it with `removeTempDir`. */
export async function makeTempDir(prefix = 'ralphtool-spec-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

export async function removeTempDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/** Folder names of the fixture changes: the active ones and the archived ones. */
export async function fixtureChangeNames(): Promise<{ active: string[]; archived: string[] }> {
  const folders = async (dir: string): Promise<string[]> =>
    (await readdir(dir, { withFileTypes: true }))
      .filter((e) => e.isDirectory() && e.name !== 'archive')
      .map((e) => e.name)
      .sort();
  return {
    active: await folders(FIXTURE_CHANGES),
    archived: await folders(join(FIXTURE_CHANGES, 'archive')),
  };
}

/**
 * Copies every fixture change, active and archived, into `<root>/openspec/changes/`
 * as active changes. Returns the names copied.
 */
export async function copyFixtureCorpus(root: string): Promise<string[]> {
  const { active, archived } = await fixtureChangeNames();
  const changes = join(root, 'openspec', 'changes');
  await mkdir(changes, { recursive: true });
  for (const name of active)
    await cp(join(FIXTURE_CHANGES, name), join(changes, name), { recursive: true });
  for (const name of archived) {
    await cp(join(FIXTURE_CHANGES, 'archive', name), join(changes, name), { recursive: true });
  }
  return [...active, ...archived];
}

/** Writes files below `root`, creating folders: `{ 'openspec/changes/a/tasks.md': '...' }`. */
export async function writeTree(
  root: string,
  files: Record<string, string | Uint8Array>,
): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
}
