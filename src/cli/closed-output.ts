/**
 * `ralphtool run X | head -1`: the reader goes away and stdout fails (EPIPE). A run must not
 * die there and then (an agent's work would be left loose in the tree, the agent running): the
 * failure asks the loop to stop like Ctrl-C does (the attempt is killed, saved and reverted,
 * finished stories stay committed, the completion choice follows, exit 130), and nothing more
 * is written to stdout. Returns the guarded writer and a function that removes the listener.
 */
export function stopWhenOutputCloses(
  stdout: NodeJS.WritableStream,
  stop: AbortController,
  notify: (message: string) => void,
  resumeCommand: string,
): { write: (text: string) => void; remove: () => void } {
  let closed = false;
  // Any error of stdout means nothing more can be written there (EPIPE, a destroyed stream).
  const onError = (): void => {
    if (closed) return;
    closed = true;
    notify(
      `ralphtool: stdout was closed: stopping the run; finished stories stay committed (continue with \`${resumeCommand}\`)\n`,
    );
    stop.abort();
  };
  stdout.on('error', onError);
  return {
    write: (text) => {
      if (!closed) stdout.write(text);
    },
    remove: () => {
      stdout.off('error', onError);
    },
  };
}
