import type { AccountWindow } from '../../../src/core/account-window.js';
import type { Change, ChangeSummary } from '../../../src/core/change.js';
import type { CompletionChoice, TimedRunEvent } from '../../../src/core/events.js';
import type { RunMark } from '../../../src/core/run-mark.js';
import type {
  ChangedFile,
  FinishedRun,
  ManyRunsEnd,
  ManyRunsHooks,
  RunHandle,
  UiController,
  UiRunOptions,
} from '../../../src/ui/controller.js';

/** One run started through the fake: the test plays the loop's part. */
export class FakeRun {
  readonly calls: string[] = [];
  /** How the UI started it: a new run, or `resume` of a recorded one. */
  mode: 'start' | 'resume' = 'start';
  /** The answer a resume was given (typed in the answer field); undefined: none. */
  answer: string | undefined = undefined;
  private settle: (result: { exitCode: number }) => void = () => undefined;
  private fail: (error: Error) => void = () => undefined;
  readonly handle: RunHandle;

  constructor(
    readonly change: string,
    private readonly onEvent: (event: TimedRunEvent) => void,
  ) {
    const done = new Promise<{ exitCode: number }>((resolve, reject) => {
      this.settle = resolve;
      this.fail = reject;
    });
    this.handle = {
      stop: () => this.calls.push('stop'),
      choose: (choice: CompletionChoice) => this.calls.push(`choose:${choice}`),
      forceQuit: () => this.calls.push('force-quit'),
      done,
      transcriptsDir: '/repo/.git/ralphtool/add-auth/transcripts',
    };
  }

  emit(...events: TimedRunEvent[]): void {
    for (const event of events) this.onEvent(event);
  }

  end(exitCode: number): void {
    this.settle({ exitCode });
  }

  crash(message: string): void {
    this.fail(new Error(message));
  }
}

/** Several runs started together through the fake: the test plays the engine's part. */
export class FakeManyRuns {
  /** stop, force-quit, choose:<change>:<choice>, choose-all:<choice>, in order. */
  readonly calls: string[] = [];
  private settle: (result: { exitCode: number; runs: ManyRunsEnd[] }) => void = () => undefined;
  readonly done: Promise<{ exitCode: number; runs: ManyRunsEnd[] }>;

  constructor(
    readonly changes: readonly string[],
    readonly hooks: ManyRunsHooks,
  ) {
    this.done = new Promise((resolve) => {
      this.settle = resolve;
    });
  }

  emit(change: string, ...events: TimedRunEvent[]): void {
    for (const event of events) this.hooks.event(change, event);
  }

  end(exitCode: number, runs: ManyRunsEnd[]): void {
    this.settle({ exitCode, runs });
  }
}

/** The UI's input boundary, in memory: changes, runs and changed files are what the test says. */
export class FakeController implements UiController {
  readonly runs: FakeRun[] = [];
  readonly changedFilesAsked: FinishedRun[] = [];
  files: ChangedFile[] = [];
  listError: string | null = null;
  /** Names passed to readChange, in order. */
  readonly reads: string[] = [];
  readonly runOptions: UiRunOptions = {
    agent: 'claude',
    maxRetries: 2,
    agentTimeoutMs: 60 * 60_000,
    idleTimeoutMs: 15 * 60_000,
    verify: ['npm test'],
  };

  constructor(
    public changes: Change[],
    private readonly summaries: (c: Change) => ChangeSummary,
  ) {}

  listChanges(): Promise<ChangeSummary[]> {
    if (this.listError !== null) return Promise.reject(new Error(this.listError));
    return Promise.resolve(this.changes.map(this.summaries));
  }

  /** Worktrees passed to readChange (a dashboard's run), in order. */
  readonly roots: string[] = [];

  readChange(name: string, root?: string): Promise<Change> {
    this.reads.push(name);
    if (root !== undefined) this.roots.push(root);
    const found = this.changes.find((c) => c.name === name);
    return found ? Promise.resolve(found) : Promise.reject(new Error(`no change named ${name}`));
  }

  startRun(
    change: string,
    onEvent: (event: TimedRunEvent) => void,
    mode: 'start' | 'resume' = 'start',
    answer?: string,
  ): RunHandle {
    const run = new FakeRun(change, onEvent);
    run.mode = mode;
    run.answer = answer;
    this.runs.push(run);
    return run.handle;
  }

  /** Marks of recorded runs the change list shows; finishes asked for, in order. */
  marks: Record<string, RunMark> = {};
  readonly finishes: string[] = [];
  finishError: string | null = null;

  /** The accounts' windows `accounts()` answers (the usage governor's), and how often it was asked. */
  accountWindows: AccountWindow[] = [];
  accountReads = 0;

  accounts(): Promise<AccountWindow[]> {
    this.accountReads += 1;
    return Promise.resolve([...this.accountWindows]);
  }

  recordedRuns(): Promise<Record<string, RunMark>> {
    return Promise.resolve({ ...this.marks });
  }

  finishRun(change: string, choice: CompletionChoice): Promise<string> {
    this.finishes.push(`${change}:${choice}`);
    if (this.finishError !== null) return Promise.reject(new Error(this.finishError));
    delete this.marks[change];
    return Promise.resolve(`${choice} of ${change} done`);
  }

  changedFiles(run: FinishedRun): Promise<ChangedFile[]> {
    this.changedFilesAsked.push(run);
    return Promise.resolve(this.files);
  }

  readonly manyRuns: FakeManyRuns[] = [];

  startRuns(changes: readonly string[], hooks: ManyRunsHooks) {
    const many = new FakeManyRuns(changes, hooks);
    this.manyRuns.push(many);
    return {
      stop: () => many.calls.push('stop'),
      choose: (change: string, choice: CompletionChoice) =>
        many.calls.push(`choose:${change}:${choice}`),
      chooseAll: (choice: CompletionChoice) => many.calls.push(`choose-all:${choice}`),
      forceQuit: () => many.calls.push('force-quit'),
      done: many.done,
    };
  }

  get lastMany(): FakeManyRuns {
    const many = this.manyRuns.at(-1);
    if (!many) throw new Error('no runs were started together');
    return many;
  }

  get lastRun(): FakeRun {
    const run = this.runs.at(-1);
    if (!run) throw new Error('no run was started');
    return run;
  }
}
