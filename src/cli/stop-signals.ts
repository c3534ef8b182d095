/**
 * Ctrl-C and SIGTERM ask the loop to stop: the agent is killed, its partial work
 * reverted, and the completion choice follows. A second Ctrl-C while that happens
 * quits at once (130), leaving the run on disk for `resume` / `finish`.
 */
export function installStopSignals(
  controller: AbortController,
  notify: (message: string) => void,
  quitNow: (code: number) => void,
): () => void {
  let presses = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    presses += 1;
    if (presses === 1) {
      notify(
        `\nralphtool: ${signal === 'SIGINT' ? 'Ctrl-C' : signal}: stopping — killing the agent and reverting its partial work (Ctrl-C again to quit at once)\n`,
      );
      controller.abort();
      return;
    }
    notify('\nralphtool: quitting now; the run is left on disk (see `ralphtool status`)\n');
    quitNow(130);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}
