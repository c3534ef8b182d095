import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Scenario } from './fake-agent.js';
import type { TempRepo } from './temp-repo.js';

/** Git's environment for the CLI: nothing inherited that points git elsewhere. */
const NO_GIT_POINTERS = {
  GIT_DIR: undefined,
  GIT_WORK_TREE: undefined,
  GIT_INDEX_FILE: undefined,
  GIT_OBJECT_DIRECTORY: undefined,
};

/**
 * What every loop test works with: a repository holding one change, a scratch folder outside
 * it for the fake agent's scenario and logs, and the questions tests ask of both. The loop
 * tests (test/run, test/system/run) and the fault matrix (test/system/faults) build their worlds on it.
 */
export class ChangeFixture {
  readonly scratch: string;
  readonly logDir: string;
  readonly scenarioFile: string;
  /** Extra environment for every ralphtool (and so agent) this fixture starts. */
  agentEnv: Record<string, string> = {};

  constructor(
    readonly change: string,
    readonly repo: TempRepo,
    scratchPrefix: string,
  ) {
    this.scratch = realpathSync(mkdtempSync(path.join(os.tmpdir(), scratchPrefix)));
    this.logDir = path.join(this.scratch, 'log');
    this.scenarioFile = path.join(this.scratch, 'scenario.json');
  }

  get dir(): string {
    return this.repo.dir;
  }

  /** `.git/ralphtool/<change>/` */
  get runDir(): string {
    return path.join(this.dir, '.git', 'ralphtool', this.change);
  }

  scenario(scenario: Scenario): this {
    writeFileSync(this.scenarioFile, JSON.stringify(scenario));
    return this;
  }

  /** Environment for the CLI (and through it, the fake agent). */
  env(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
    return {
      ...NO_GIT_POINTERS,
      FAKE_AGENT_SCENARIO: this.scenarioFile,
      FAKE_AGENT_LOG_DIR: this.logDir,
      ...this.agentEnv,
      ...extra,
    };
  }

  /** True when the fake agent was started for this attempt. */
  invoked(storyId: string, attempt: number): boolean {
    return existsSync(path.join(this.logDir, `invocation-${storyId}-${attempt}.json`));
  }

  git(...args: string[]): string {
    return this.repo.git(...args);
  }

  sha(rev: string): string {
    return this.git('rev-parse', '--verify', rev).trim();
  }

  currentBranch(): string {
    return this.git('rev-parse', '--abbrev-ref', 'HEAD').trim();
  }

  branchExists(branch: string): boolean {
    return this.git('branch', '--list', branch).trim() !== '';
  }

  /** Subjects of the commits on `range`, oldest first. */
  subjects(range: string): string[] {
    return lines(this.git('log', '--reverse', '--format=%s', range));
  }

  /**
   * The change's refs under `refs/ralphtool/<change>/` (attempts, saves), without the pin of a
   * run still going (`…/checkpoint`, test/checkpoint/gc-under-the-run.test.ts checks that one).
   */
  attemptRefs(): string[] {
    return lines(
      this.git('for-each-ref', '--format=%(refname)', `refs/ralphtool/${this.change}/`),
    ).filter((ref) => ref !== `refs/ralphtool/${this.change}/checkpoint`);
  }

  /** `git status --porcelain` lines, untracked files one by one, ignored ones left out. */
  status(): string[] {
    return lines(this.git('status', '--porcelain', '--untracked-files=all'));
  }

  read(file: string): string {
    return readFileSync(path.join(this.dir, file), 'utf8');
  }

  exists(file: string): boolean {
    return existsSync(path.join(this.dir, file));
  }

  write(file: string, content: string | Buffer): void {
    const full = path.join(this.dir, file);
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, content);
  }

  remove(): void {
    this.repo.remove();
    rmSync(this.scratch, { recursive: true, force: true });
  }
}

function lines(output: string): string[] {
  return output.split('\n').filter((line) => line !== '');
}
