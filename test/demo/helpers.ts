import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * A place for one demo run: its own TMPDIR (where the demo makes its repository, so
 * removing the sandbox removes it) and an empty HOME, so git has no global identity.
 */
export interface DemoSandbox {
  root: string;
  env: Record<string, string | undefined>;
  remove(): void;
}

export function makeDemoSandbox(): DemoSandbox {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'ralphtool-demo-test-')));
  const home = path.join(root, 'home');
  const tmp = path.join(root, 'tmp');
  mkdirSync(home);
  mkdirSync(tmp);
  return {
    root,
    env: {
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, '.config'),
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: undefined,
      GIT_AUTHOR_NAME: undefined,
      GIT_AUTHOR_EMAIL: undefined,
      GIT_COMMITTER_NAME: undefined,
      GIT_COMMITTER_EMAIL: undefined,
      EMAIL: undefined,
      GIT_DIR: undefined,
      GIT_WORK_TREE: undefined,
      GIT_INDEX_FILE: undefined,
      TMPDIR: tmp,
      // What the demo does is checked, not its pacing for a watching person.
      RALPHTOOL_DEMO_PAUSE_MS: '0',
    },
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** The demo repository named in the demo's own output. */
export function demoDirFrom(output: string): string {
  const dir = /^Example repository: (.+)$/m.exec(output)?.[1];
  if (!dir) throw new Error(`the demo did not say where its repository is:\n${output}`);
  return dir.trim();
}
