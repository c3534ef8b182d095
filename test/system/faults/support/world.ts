import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ChangeFixture } from '../../../support/change-fixture.js';
import { runCli, type CliRun } from '../../../support/cli.js';
import { fakeAgentFlags, stories, type Scenario, type Step } from '../../../support/fake-agent.js';
import { makeChangeRepo } from '../../../support/temp-repo.js';
import { LiveCli } from '../../../support/live-cli.js';
import { killGroup } from '../../../support/processes.js';
import { diffSnapshots, snapshotPaths, type FileEntry } from './snapshot.js';

export { FAKE_AGENT, quote, stories } from '../../../support/fake-agent.js';
export type { Scenario, Step } from '../../../support/fake-agent.js';
/** `--agent command --agent-command "<node> <script>"`. */
export const agentFlags = fakeAgentFlags;

/** The usual successful attempt: write a file, tick every task of the story, COMPLETE. */
export function succeed(file: string, content: string): Step[] {
  return [{ write: file, content }, { tick: 'all' }, { signal: 'COMPLETE' }];
}

/** Each story N writes `src/story-N.txt` and completes. */
export const ALL_SUCCEED: Scenario = {
  '*': [{ write: 'src/story.txt', content: 'x\n' }, { tick: 'all' }, { signal: 'COMPLETE' }],
};

/**
 * The user's own files, one of each kind the contract protects. `.gitignore` ignores `.env`,
 * `node_modules/` and `build/`. What the working tree holds when the run starts:
 */
export const USER_FILES = {
  committed: ['docs/stable.md', 'bin/tool.sh', '.gitignore'],
  /** Committed, then changed without committing. */
  uncommitted: ['docs/draft.md'],
  untracked: ['notes/todo.txt'],
  ignored: ['.env', 'node_modules/pkg/index.js', 'build/out.bin'],
} as const;

export const ALL_USER_FILES: readonly string[] = Object.values(USER_FILES).flat();

/**
 * A test's world: a repository holding one change plus the user's own files of every kind,
 * and a scratch folder (outside the repository) for the agent's scenario and logs.
 */
export class FaultWorld extends ChangeFixture {
  /** Process groups to kill after the test (agents a killed ralphtool left behind). */
  readonly strayGroups: number[] = [];
  private userBefore: Map<string, FileEntry | null> | null = null;

  constructor(
    change: string,
    storyCount: number,
    opts: { tasksPerStory?: number; extraFiles?: Record<string, string>; userFiles?: boolean } = {},
  ) {
    const user = opts.userFiles === false ? {} : committedUserFiles();
    const repo = makeChangeRepo(change, stories(storyCount, opts.tasksPerStory ?? 1), {
      ...user,
      ...opts.extraFiles,
    });
    super(change, repo, 'ralphtool-fault-');
    if (opts.userFiles !== false) {
      chmodSync(path.join(this.dir, 'bin/tool.sh'), 0o755);
      this.git('add', 'bin/tool.sh');
      this.git('commit', '-q', '-m', 'tool is executable');
      this.addUncommittedUserFiles();
      this.userBefore = snapshotPaths(this.dir, ALL_USER_FILES);
    }
  }

  get branch(): string {
    return `ralph/${this.change}`;
  }

  get stateFile(): string {
    return path.join(this.runDir, 'state.json');
  }

  get tasksPath(): string {
    return `openspec/changes/${this.change}/tasks.md`;
  }

  /** `ralphtool <args>` run to its end. */
  cli(args: readonly string[], env: Record<string, string | undefined> = {}): Promise<CliRun> {
    return runCli(args, { cwd: this.dir, env: this.env(env), timeoutMs: 300_000 });
  }

  /** `ralphtool run|resume <change> --json --on-complete <choice>` with the fake agent. */
  loop(
    command: 'run' | 'resume',
    extra: readonly string[] = [],
    opts: { onComplete?: 'keep' | 'cleanup'; agent?: string } = {},
  ): Promise<CliRun> {
    return this.cli(loopArgs(this.change, command, extra, opts));
  }

  /** The same as a live process, to kill or watch. */
  spawn(
    command: 'run' | 'resume',
    extra: readonly string[] = [],
    opts: { onComplete?: 'keep' | 'cleanup'; agent?: string; keepMessages?: boolean } = {},
  ): LiveCli {
    return new LiveCli(
      loopArgs(this.change, command, extra, opts),
      this.dir,
      this.env(),
      opts.keepMessages ?? true,
    );
  }

  async statusJson(): Promise<{ runs: Record<string, unknown>[] }> {
    const result = await this.cli(['status', '--json']);
    if (result.exitCode !== 0) throw new Error(`status failed: ${result.stderr}`);
    return JSON.parse(result.stdout) as { runs: Record<string, unknown>[] };
  }

  /** The state file as JSON (throws when missing). */
  state(): Record<string, unknown> & { stories: Record<string, Record<string, unknown>> } {
    return JSON.parse(readFileSync(this.stateFile, 'utf8')) as Record<string, unknown> & {
      stories: Record<string, Record<string, unknown>>;
    };
  }

  writeState(state: Record<string, unknown>): void {
    mkdirSync(this.runDir, { recursive: true });
    writeFileSync(this.stateFile, `${JSON.stringify(state, null, 2)}\n`);
  }

  /** Files of a commit, sorted. */
  treeFiles(rev: string): string[] {
    return this.git('ls-tree', '-r', '--name-only', '-z', rev)
      .split('\0')
      .filter((line) => line !== '')
      .sort();
  }

  childPid(storyId: string, attempt: number): number | null {
    try {
      return Number(
        readFileSync(path.join(this.logDir, `child-${storyId}-${attempt}.pid`), 'utf8'),
      );
    } catch {
      return null;
    }
  }

  /** Takes the user's files as they are now as the reference (after a test changed them on purpose). */
  rebaseline(): void {
    this.userBefore = snapshotPaths(this.dir, ALL_USER_FILES);
  }

  /** How the user's files differ from when the world was made (empty = byte-identical). */
  userFilesChanged(): string[] {
    if (this.userBefore === null) throw new Error('this world has no user files');
    return diffSnapshots(this.userBefore, snapshotPaths(this.dir, ALL_USER_FILES));
  }

  /** The user's files as committed into a commit's tree (must equal the working files). */
  userFilesIn(rev: string): Record<string, string> {
    const out: Record<string, string> = {};
    for (const file of [
      ...USER_FILES.committed,
      ...USER_FILES.uncommitted,
      ...USER_FILES.untracked,
    ]) {
      out[file] = this.git('show', `${rev}:${file}`);
    }
    return out;
  }

  override remove(): void {
    for (const group of this.strayGroups) killGroup(group);
    super.remove();
  }

  private addUncommittedUserFiles(): void {
    this.write('docs/draft.md', 'draft v2, not committed yet\n');
    this.write('notes/todo.txt', 'my own notes\n');
    this.write('.env', 'SECRET=do-not-lose\n');
    this.write('node_modules/pkg/index.js', 'module.exports = 42;\n');
    this.write('build/out.bin', Buffer.from([0, 1, 2, 255, 254, 0, 10, 13]));
  }
}

/** `run|resume <change>` with the fake agent, NDJSON events and a completion choice. */
function loopArgs(
  change: string,
  command: 'run' | 'resume',
  extra: readonly string[],
  opts: { onComplete?: 'keep' | 'cleanup'; agent?: string },
): string[] {
  return [
    command,
    change,
    ...agentFlags(opts.agent),
    '--json',
    '--on-complete',
    opts.onComplete ?? 'keep',
    ...extra,
  ];
}

function committedUserFiles(): Record<string, string> {
  return {
    '.gitignore': '.env\nnode_modules/\nbuild/\n',
    'docs/stable.md': 'stable docs\n',
    'docs/draft.md': 'draft v1\n',
    'bin/tool.sh': '#!/bin/sh\necho tool\n',
  };
}
