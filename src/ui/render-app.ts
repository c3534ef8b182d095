import { render } from 'ink';
import { createElement } from 'react';
import { App } from './app.js';
import type { UiController } from './controller.js';

export interface RenderAppOptions {
  stdin?: NodeJS.ReadStream;
  stdout?: NodeJS.WriteStream;
  stderr?: NodeJS.WriteStream;
  /** Draw on the terminal's alternate screen (default: when stdout is a TTY). */
  alternateScreen?: boolean;
  maxTranscriptLines?: number | undefined;
  /** Closes the UI from outside (SIGTERM where nobody answers): the terminal is restored. */
  leave?: AbortSignal;
}

const ENTER_ALTERNATE = '\u001B[?1049h';
const LEAVE_ALTERNATE = '\u001B[?1049l';
const SHOW_CURSOR = '\u001B[?25h';

/**
 * Runs the interactive UI until the user leaves and returns the exit code to use:
 * the last run's code, 130 after a force quit, 0 when nothing was run. The
 * terminal is restored (raw mode off, cursor shown, main screen back) whatever happens.
 */
export async function renderApp(
  controller: UiController,
  options: RenderAppOptions = {},
): Promise<number> {
  const stdout = options.stdout ?? process.stdout;
  const alternate = options.alternateScreen ?? stdout.isTTY === true;
  let code = 0;
  if (alternate) stdout.write(ENTER_ALTERNATE);
  try {
    const instance = render(
      createElement(App, {
        controller,
        maxTranscriptLines: options.maxTranscriptLines,
        onExit: (exitCode: number) => {
          code = exitCode;
        },
      }),
      {
        stdout,
        stdin: options.stdin ?? process.stdin,
        stderr: options.stderr ?? process.stderr,
        // The app handles Ctrl-C itself: it asks the loop to stop like `q`.
        exitOnCtrlC: false,
        patchConsole: false,
        // Ink draws at most 30 times a second by default: under an agent's flood a key then
        // waited up to 33 ms more for its frame (bench/ui-flood.mjs: Tab 72 → 33 ms, CPU
        // unchanged at ~28 % of a core, since the events still come in 60 ms batches).
        maxFps: 60,
      },
    );
    const close = (): void => instance.unmount();
    if (options.leave?.aborted === true) close();
    options.leave?.addEventListener('abort', close, { once: true });
    try {
      await instance.waitUntilExit();
    } finally {
      options.leave?.removeEventListener('abort', close);
      instance.cleanup();
    }
  } finally {
    if (alternate) stdout.write(LEAVE_ALTERNATE);
    if (stdout.isTTY === true) stdout.write(SHOW_CURSOR);
  }
  return code;
}
