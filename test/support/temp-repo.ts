import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Environment for git in tests: no inherited repository pointers, no global config. */
export function cleanGitEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const key of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_OBJECT_DIRECTORY']) {
    delete env[key];
  }
  return env;
}

/** Runs git in a test repository and returns stdout. */
export function sh(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: cleanGitEnv(), encoding: 'utf8' });
}

export interface TempRepo {
  dir: string;
  git(...args: string[]): string;
  write(file: string, content: string): void;
  remove(): void;
}

/**
 * A real temporary repository in the style of changesets' gitdir(): branch main,
 * a local identity, signing off, one initial commit.
 */
export function makeTempRepo(
  files: Record<string, string> = { 'README.md': '# demo\n' },
): TempRepo {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'ralphtool-test-')));
  const write = (file: string, content: string): void => {
    const full = path.join(dir, file);
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, content);
  };
  sh(dir, 'init', '-q', '-b', 'main');
  sh(dir, 'config', 'user.name', 'Test User');
  sh(dir, 'config', 'user.email', 'test@example.com');
  sh(dir, 'config', 'commit.gpgsign', 'false');
  for (const [file, content] of Object.entries(files)) write(file, content);
  sh(dir, 'add', '-A');
  sh(dir, 'commit', '-q', '-m', 'initial commit');
  return {
    dir,
    git: (...args) => sh(dir, ...args),
    write,
    remove: () => {
      rmSync(dir, { recursive: true, force: true });
      // Where `run --worktree` puts the runs' worktrees (beside the repository).
      rmSync(`${dir}.ralph`, { recursive: true, force: true });
    },
  };
}

/** A tasks.md with one `## N. Title` group per story and `- [ ] N.M` tasks. */
export function tasksMarkdown(
  stories: readonly { title: string; tasks: readonly string[] }[],
): string {
  return stories
    .map(
      (story, i) =>
        `## ${i + 1}. ${story.title}\n\n${story.tasks.map((t, j) => `- [ ] ${i + 1}.${j + 1} ${t}`).join('\n')}\n`,
    )
    .join('\n');
}

/** A repository holding one OpenSpec change with the given stories, committed on main. */
export function makeChangeRepo(
  change: string,
  stories: readonly { title: string; tasks: readonly string[] }[],
  extraFiles: Record<string, string> = {},
): TempRepo {
  return makeTempRepo({
    'README.md': '# demo project\n',
    'src/app.txt': 'app v1\n',
    [`openspec/changes/${change}/proposal.md`]: `# ${change}\n\nWhy: a test.\n`,
    [`openspec/changes/${change}/tasks.md`]: tasksMarkdown(stories),
    [`openspec/changes/${change}/specs/demo/spec.md`]:
      '## ADDED Requirements\n\n### Requirement: Demo\n\nThe demo SHALL work.\n\n#### Scenario: Works\n- **WHEN** it runs\n- **THEN** it works\n',
    ...extraFiles,
  });
}

/** A repository holding several OpenSpec changes (name → stories), all committed on main. */
export function makeManyChangeRepo(
  changes: Record<string, readonly { title: string; tasks: readonly string[] }[]>,
  extraFiles: Record<string, string> = {},
): TempRepo {
  const files: Record<string, string> = {
    'README.md': '# demo project\n',
    'src/app.txt': 'app v1\n',
    ...extraFiles,
  };
  for (const [change, stories] of Object.entries(changes)) {
    files[`openspec/changes/${change}/proposal.md`] = `# ${change}\n\nWhy: a test.\n`;
    files[`openspec/changes/${change}/tasks.md`] = tasksMarkdown(stories);
  }
  return makeTempRepo(files);
}
