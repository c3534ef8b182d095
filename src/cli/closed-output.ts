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
  // Lines are gathered and written together once the events of the moment are out (an agent's
  // flood is thousands of events a second: one write each was most of the time spent on them).
  let pending = '';
  let scheduled = false;
  const flush = (): void => {
    scheduled = false;
    if (pending === '') return;
    const text = pending;
    pending = '';
    if (!closed) stdout.write(text);
  };
  // A quit at once ends the process with `process.exit`: what is gathered goes out first.
  process.on('exit', flush);
  // Any error of stdout means nothing more can be written there (EPIPE, a destroyed stream).
  const onError = (): void => {
    if (closed) return;
    closed = true;
    pending = '';
    notify(
      `ralphtool: stdout was closed: stopping the run; finished stories stay committed (continue with \`${resumeCommand}\`)\n`,
    );
    stop.abort();
  };
  stdout.on('error', onError);
  return {
    write: (text) => {
      if (closed) return;
      pending += text;
      if (pending.length >= FLUSH_AT) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    remove: () => {
      flush();
      process.off('exit', flush);
      stdout.off('error', onError);
    },
  };
}

/** Characters gathered before they are written without waiting for the moment's end. */
const FLUSH_AT = 64 * 1024;
