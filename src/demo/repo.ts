import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { git, type GitContext } from '../git/git.js';
import { DEMO_CHANGE, demoProjectFiles } from './project.js';
import { ENGINE_CONFIG } from '../git/engine-config.js';

export interface DemoRepo {
  /** The repository's top directory (canonical path), left in place for the user. */
  dir: string;
  change: string;
}

/** Commits here must work on a machine with no git identity and with signing turned on. */
const LOCAL_CONFIG: readonly (readonly [string, string])[] = [
  ['user.name', 'ralphtool demo'],
  ['user.email', 'demo@ralphtool.invalid'],
  ['commit.gpgsign', 'false'],
];

/**
 * A fresh temporary repository on branch `main` holding the demo project and its
 * change in one commit. The user's hooks never run here; on failure nothing is left.
 */
export async function createDemoRepo(opts: {
  timeoutMs: number;
  /** The environment git starts from: the command's. */
  baseEnv: NodeJS.ProcessEnv;
  /** Where the temporary folder is made (default: the OS temp folder). */
  parent?: string;
}): Promise<DemoRepo> {
  const dir = await realpath(
    await mkdtemp(path.join(opts.parent ?? os.tmpdir(), 'ralphtool-demo-')),
  );
  try {
    for (const [file, content] of Object.entries(demoProjectFiles())) {
      const full = path.join(dir, file);
      await mkdir(path.dirname(full), { recursive: true });
      await writeFile(full, content);
    }
    const ctx: GitContext = {
      cwd: dir,
      timeoutMs: opts.timeoutMs,
      baseEnv: opts.baseEnv,
      config: ENGINE_CONFIG,
    };
    await git(ctx, ['init', '-q']);
    // `init -b` needs git 2.28; pointing the unborn HEAD works everywhere.
    await git(ctx, ['symbolic-ref', 'HEAD', 'refs/heads/main']);
    for (const [key, value] of LOCAL_CONFIG) await git(ctx, ['config', key, value]);
    await git(ctx, ['add', '-A']);
    await git(ctx, [
      'commit',
      '-q',
      '--no-verify',
      '-m',
      `textkit: example project and the ${DEMO_CHANGE} change`,
    ]);
    return { dir, change: DEMO_CHANGE };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}
