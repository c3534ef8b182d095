import { QuitNow } from '../core/errors.js';

/**
 * Ctrl-C, SIGTERM and SIGHUP (the terminal closed, an SSH session dropped) ask the loop to
 * stop: the agent is killed, its partial work reverted, and the completion choice follows. A
 * second Ctrl-C or SIGTERM while that happens quits at once (130), leaving the run on disk for
 * `resume` / `finish`. A hang-up is never that second press: a closing terminal may send it
 * more than once, and the stop it asked for must be allowed to finish.
 */
export function installStopSignals(
  controller: AbortController,
  notify: (message: string) => void,
  quitNow: (code: number) => void,
  /** Told of a hang-up before the stop: nobody is left to answer the completion choice. */
  onHangUp: () => void = () => undefined,
): () => void {
  let presses = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (signal === 'SIGHUP') {
      noteHangUp();
      onHangUp();
    }
    if (signal === 'SIGHUP' && presses > 0) return;
    presses += 1;
    if (presses === 1) {
      notify(
        `\nralphtool: ${SIGNAL_NAMES[signal] ?? signal}: stopping — killing the agent and reverting its partial work (Ctrl-C again to quit at once)\n`,
      );
      controller.abort();
      return;
    }
    notify('\nralphtool: quitting now; the run is left on disk (see `ralphtool status`)\n');
    quitNow(130);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.off('SIGHUP', onSignal);
  };
}

const SIGNAL_NAMES: Partial<Record<NodeJS.Signals, string>> = {
  SIGINT: 'Ctrl-C',
  SIGHUP: 'the terminal closed (SIGHUP)',
};

let hungUp = false;

/** Remembers that the terminal closed (SIGHUP), for how ralphtool exits (see main.ts). */
export function noteHangUp(): void {
  hungUp = true;
}

/** Whether a SIGHUP was handled: the terminal ralphtool was started on may be gone. */
export function terminalHungUp(): boolean {
  return hungUp;
}

/** A headless command's signals (`run`, `resume`, one change or several), wired once. */
export interface HeadlessQuit {
  /** Rejects with QuitNow when the command must end at once; raced against the run. */
  quitting: Promise<never>;
  quitNow: (code: number) => void;
  /** After a hang-up nobody answers the completion choice: the run is left resumable. */
  hungUp: () => boolean;
  remove: () => void;
}

/**
 * Signal handlers and the completion prompt's Ctrl-C cannot throw into a command: they reject
 * `quitting`, which the run is raced against, and the CLI exits on its QuitNow.
 */
export function headlessQuit(
  controller: AbortController,
  notify: (message: string) => void,
): HeadlessQuit {
  let quitNow: (code: number) => void = () => undefined;
  const quitting = new Promise<never>((_, reject) => {
    quitNow = (code) => reject(new QuitNow(code));
  });
  let hungUp = false;
  const remove = installStopSignals(controller, notify, quitNow, () => {
    hungUp = true;
  });
  return { quitting, quitNow: (code) => quitNow(code), hungUp: () => hungUp, remove };
}
