import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../../src/ui/render-app.js';
import { FakeController } from './support/fake-controller.js';
import { addAuth, storyTwoDoneStoryThreeRetrying, summaryOf } from './support/fixtures.js';
import { tick } from './support/harness.js';

/** A terminal as Ink sees it: a TTY stdout with a size, and a stdin with raw mode. */
class FakeTerminal {
  readonly out = Object.assign(new EventEmitter(), {
    isTTY: true,
    columns: 80,
    rows: 24,
    written: [] as string[],
    write(chunk: string): boolean {
      this.written.push(chunk);
      return true;
    },
  });

  readonly in = Object.assign(new EventEmitter(), {
    isTTY: true,
    rawMode: false,
    pending: [] as string[],
    setEncoding(): void {},
    setRawMode(mode: boolean): void {
      this.rawMode = mode;
    },
    resume(): void {},
    pause(): void {},
    ref(): void {},
    unref(): void {},
    read(): string | null {
      return this.pending.shift() ?? null;
    },
  });

  type(data: string): void {
    this.in.pending.push(data);
    this.in.emit('readable');
  }

  get output(): string {
    return this.out.written.join('');
  }
}

async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition never held');
    await tick();
  }
}

function start(controller: FakeController, terminal: FakeTerminal): Promise<number> {
  return renderApp(controller, {
    stdout: terminal.out as unknown as NodeJS.WriteStream,
    stderr: terminal.out as unknown as NodeJS.WriteStream,
    stdin: terminal.in as unknown as NodeJS.ReadStream,
  });
}

describe('renderApp', () => {
  it('returns 0 when the user quits, with raw mode off and the main screen restored', async () => {
    const terminal = new FakeTerminal();
    const exit = start(new FakeController([addAuth()], (c) => summaryOf(c)), terminal);
    await until(() => terminal.in.rawMode);
    terminal.type('q');
    expect(await exit).toBe(0);
    expect(terminal.in.rawMode).toBe(false);
    const output = terminal.output;
    expect(output.startsWith('\u001B[?1049h')).toBe(true);
    expect(output.lastIndexOf('\u001B[?1049l')).toBeGreaterThan(0);
    expect(output.endsWith('\u001B[?25h')).toBe(true);
  });

  it('handles Ctrl-C itself: during a run it stops, and three presses force quit with 130', async () => {
    const terminal = new FakeTerminal();
    const controller = new FakeController([addAuth()], (c) => summaryOf(c));
    const exit = start(controller, terminal);
    await until(() => terminal.in.rawMode);
    terminal.type('\r');
    await until(() => controller.reads.length > 0);
    await tick();
    terminal.type('r');
    await until(() => controller.runs.length === 1);
    controller.lastRun.emit(...storyTwoDoneStoryThreeRetrying());
    terminal.type('\u0003');
    await until(() => controller.lastRun.calls.length === 1);
    expect(controller.lastRun.calls).toEqual(['stop']);
    terminal.type('\u0003');
    terminal.type('\u0003');
    expect(await exit).toBe(130);
    expect(controller.lastRun.calls).toEqual(['stop', 'force-quit']);
    expect(terminal.in.rawMode).toBe(false);
  });
});
