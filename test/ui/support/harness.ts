import type { EventEmitter } from 'node:events';
import { render } from 'ink-testing-library';
import { createElement } from 'react';
import { App } from '../../../src/ui/app.js';
import type { UiController } from '../../../src/ui/controller.js';
import { T0 } from './fixtures.js';

export const KEY = {
  up: '\u001B[A',
  down: '\u001B[B',
  right: '\u001B[C',
  left: '\u001B[D',
  pageUp: '\u001B[5~',
  pageDown: '\u001B[6~',
  end: '\u001B[F',
  enter: '\r',
  tab: '\t',
  shiftTab: '\u001B[Z',
  escape: '\u001B',
  ctrlC: '\u0003',
} as const;

// eslint-disable-next-line no-control-regex
const ANSI = /\u001B\[[0-9;?]*[ -/]*[@-~]/g;

/** A settable clock for the App (ms). */
export interface Clock {
  now: number;
}

export interface Ui {
  frame(): string;
  lines(): string[];
  press(...keys: string[]): Promise<void>;
  /** Waits until the frame satisfies `check` (polling, never a fixed sleep). */
  until(check: string | ((frame: string) => boolean)): Promise<string>;
  resize(columns: number, rows: number): Promise<void>;
  clock: Clock;
  exitCode(): number | null;
  unmount(): void;
  /** Raw output of every frame drawn so far, escape codes included. */
  allOutput(): string;
  frameCount(): number;
}

export async function renderUi(
  controller: UiController,
  options: { columns?: number; rows?: number; maxTranscriptLines?: number; now?: number } = {},
): Promise<Ui> {
  const clock: Clock = { now: options.now ?? T0 };
  let code: number | null = null;
  const instance = render(
    createElement(App, {
      controller,
      now: () => clock.now,
      batchMs: 10,
      maxTranscriptLines: options.maxTranscriptLines,
      onExit: (c: number) => {
        code = c;
      },
    }),
  );
  const frame = (): string => (instance.lastFrame() ?? '').replace(ANSI, '');
  const ui: Ui = {
    frame,
    lines: () => frame().split('\n'),
    async press(...keys) {
      for (const key of keys) {
        instance.stdin.write(key);
        await tick();
      }
    },
    async until(check) {
      const test = typeof check === 'string' ? (f: string) => f.includes(check) : check;
      const deadline = Date.now() + 10_000;
      while (!test(frame())) {
        if (Date.now() > deadline) {
          throw new Error(`frame never matched ${String(check)}; last frame:\n${frame()}`);
        }
        await tick();
      }
      return frame();
    },
    async resize(columns, rows) {
      setSize(instance.stdout, columns, rows);
      await tick();
    },
    clock,
    exitCode: () => code,
    unmount: () => instance.unmount(),
    allOutput: () => instance.frames.join('\n'),
    frameCount: () => instance.frames.length,
  };
  await ui.resize(options.columns ?? 100, options.rows ?? 30);
  // The first frame is drawn and input is listened to once the changes are loaded.
  await ui.until((f) => !f.includes('loading changes'));
  return ui;
}

function setSize(stdout: EventEmitter, columns: number, rows: number): void {
  Object.defineProperty(stdout, 'columns', { value: columns, configurable: true });
  Object.defineProperty(stdout, 'rows', { value: rows, configurable: true });
  stdout.emit('resize');
}

/** Lets stdin handling, React and Ink's timers run once. */
export function tick(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 5));
}
