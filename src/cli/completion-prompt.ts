import { createInterface } from 'node:readline/promises';
import type { CompletionChoice, RunOutcome } from '../core/events.js';

/** What the completion question needs to say. */
export interface CompletionQuestion {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  outcome: RunOutcome;
  change: string;
  branch: string;
  original: string;
  /** A Ctrl-C while it asks (the second one: the first stopped the loop). */
  onInterrupt: () => void;
}

/**
 * Asks on the terminal whether to clean up, keep, or leave the run for later. Cleanup is the
 * default, as in the UI: it leaves the user on their own branch with nothing committed for them.
 * Null for "later" (`l`), and when no answer can come (Ctrl-D, or the input closed): the run is
 * then left at its last checkpoint for `ralphtool resume` or `ralphtool finish`.
 */
export async function askCompletionChoice(q: CompletionQuestion): Promise<CompletionChoice | null> {
  const rl = createInterface({ input: q.input, output: q.output, terminal: true });
  // In raw mode Ctrl-C reaches readline, not the process: treat it as the second Ctrl-C.
  rl.on('SIGINT', q.onInterrupt);
  // Ctrl-D or an input that ends closes the interface; a question then never gets its answer.
  const closed = new Promise<null>((resolve) => rl.once('close', () => resolve(null)));
  const ask = (query: string): Promise<string | null> =>
    Promise.race([rl.question(query).catch(() => null), closed]);
  // A run with stories left goes on with resume; a complete one has only its end left to choose.
  const later =
    q.outcome === 'complete'
      ? `\`ralphtool finish ${q.change} --cleanup|--keep\` decides later`
      : `\`ralphtool resume ${q.change}\` goes on, \`ralphtool finish ${q.change}\` ends it`;
  try {
    q.output.write(
      `\nThe loop ended (${q.outcome}). What now?\n` +
        `  c  cleanup: back to ${q.original}, all the work left as uncommitted changes\n` +
        `  k  keep:    stay on ${q.branch}, one commit per story\n` +
        `  l  later:   leave the run on ${q.branch} at its last checkpoint (${later})\n`,
    );
    for (;;) {
      const reply = await ask('Cleanup or keep? [C/k/l] ');
      if (reply === null) return null;
      const answer = reply.trim().toLowerCase();
      if (answer === '' || answer === 'c' || answer === 'cleanup') return 'cleanup';
      if (answer === 'k' || answer === 'keep') return 'keep';
      if (answer === 'l' || answer === 'later') return null;
      q.output.write('Please answer c (cleanup), k (keep) or l (later).\n');
    }
  } finally {
    rl.close();
  }
}
