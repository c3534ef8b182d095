import { describe, expect, it } from 'vitest';
import type { CompletionChoice, TimedRunEvent } from '../../src/core/events.js';
import { startManyFromUi } from '../../src/cli/ui-many.js';
import type { ManyRunHooks, ManyRunRequest, ManyRunResult } from '../../src/run/many/many-types.js';
import { toRunOptions } from '../../src/cli/run-flags.js';

/**
 * The bridge between the dashboard and the multi-run engine: the choices the UI sends per
 * change or for all answer the engine's `chooseCompletion` whenever it asks (before or after
 * the answer is given), a quit answers "none", and what the engine tells reaches the UI. The
 * engine here is a script of the calls runMany makes (run/many/many.ts), so the order is the test's.
 */
function bridge() {
  let hooks: ManyRunHooks | null = null;
  let request: ManyRunRequest | null = null;
  let finish: (result: ManyRunResult) => void = () => undefined;
  const events: string[] = [];
  const forced: boolean[] = [];
  const handle = startManyFromUi(
    (req, h) => {
      request = req;
      hooks = h;
      return new Promise<ManyRunResult>((resolve) => {
        finish = resolve;
      });
    },
    { cwd: '/repo', options: toRunOptions({}, false), env: {}, parallel: 3 },
    ['alpha', 'beta', 'gamma'],
    {
      event: (change: string, event: TimedRunEvent) => events.push(`${change}:${event.type}`),
      mergeChecked: (report) => events.push(`merge:${report.checked.join(',')}`),
      notice: (change, message) => events.push(`notice:${change ?? '*'}:${message}`),
    },
    () => forced.push(true),
  );
  const engine = (): ManyRunHooks => {
    if (!hooks) throw new Error('the engine was not started');
    return hooks;
  };
  const ask = (change: string): Promise<CompletionChoice | null> =>
    engine().chooseCompletion(change, 'complete');
  const awaiting = (change: string): void =>
    engine().emit(change, {
      type: 'run.awaiting-choice',
      outcome: 'complete',
      options: ['cleanup', 'keep'],
    });
  return {
    handle,
    engine,
    ask,
    awaiting,
    events,
    forced,
    request: () => request,
    finish: (r: ManyRunResult) => finish(r),
  };
}

describe('startManyFromUi', () => {
  it('starts the engine with every change in a worktree, the choice asked, and --parallel', () => {
    const b = bridge();
    const req = b.request();
    expect(req?.changes).toEqual(['alpha', 'beta', 'gamma']);
    expect(req?.parallel).toBe(3);
    expect(req?.options.worktree).toBe(true);
    expect(req?.options.onComplete).toBe('ask');
    expect(req?.options.json).toBe(false);
  });

  it('a choice given before the run asks answers it when it does; one given while it asks, at once', async () => {
    const b = bridge();
    b.handle.choose('beta', 'cleanup');
    await expect(b.ask('beta')).resolves.toBe('cleanup');
    const alpha = b.ask('alpha');
    b.handle.choose('alpha', 'keep');
    await expect(alpha).resolves.toBe('keep');
  });

  it('for all: answers the runs asking now and those that ask later, never one answered already', async () => {
    const b = bridge();
    b.handle.choose('alpha', 'cleanup');
    const beta = b.ask('beta');
    b.handle.chooseAll('keep');
    await expect(beta).resolves.toBe('keep');
    await expect(b.ask('gamma')).resolves.toBe('keep');
    await expect(b.ask('alpha')).resolves.toBe('cleanup');
  });

  it('quitting answers "none" to every run asking and every run that asks later, and stops the runs', async () => {
    const b = bridge();
    const alpha = b.ask('alpha');
    b.handle.forceQuit();
    await expect(alpha).resolves.toBeNull();
    await expect(b.ask('beta')).resolves.toBeNull();
    expect(b.engine().stop.aborted).toBe(true);
    expect(b.forced).toEqual([true]);
  });

  it('is parked (nothing left to stop) only when every run whose loop goes on waits for its choice', () => {
    const b = bridge();
    expect(b.handle.parked()).toBe(false);
    b.awaiting('alpha');
    b.awaiting('beta');
    expect(b.handle.parked()).toBe(false);
    b.engine().emit('gamma', {
      type: 'run.finished',
      outcome: 'error',
      choice: null,
      branch: 'ralph/gamma',
      originalBranch: 'main',
      storiesCompleted: 0,
      storiesTotal: 2,
      costUsd: 0,
      durationMs: 1,
    });
    expect(b.handle.parked()).toBe(true);
    expect(b.handle.stopping()).toBe(false);
    b.handle.stop();
    expect(b.handle.stopping()).toBe(true);
  });

  it('hands the engine’s events, merge report and notices to the UI, and settles with its result', async () => {
    const b = bridge();
    b.awaiting('alpha');
    b.engine().mergeChecked({
      against: 'main',
      checked: ['alpha'],
      conflicts: [],
      order: ['alpha'],
    });
    b.engine().notice(null, 'usage limit');
    b.engine().notice('beta', 'refused');
    expect(b.events).toEqual([
      'alpha:run.awaiting-choice',
      'merge:alpha',
      'notice:*:usage limit',
      'notice:beta:refused',
    ]);
    expect(b.handle.ended()).toBe(false);
    b.finish({ exitCode: 1, runs: [{ change: 'alpha', exitCode: 1, error: 'x' }] });
    await expect(b.handle.done).resolves.toEqual({
      exitCode: 1,
      runs: [{ change: 'alpha', exitCode: 1, error: 'x' }],
    });
    expect(b.handle.ended()).toBe(true);
  });
});
