import { createInterface } from 'node:readline/promises';
import type { CompletionChoice, RunOutcome } from '../core/events.js';

/**
 * Asks on the terminal whether to clean up or keep. Cleanup is the default, as in
 * the UI: it leaves the user on their own branch with nothing committed for them.
 * Null when no answer can come (Ctrl-D, or the input closed): the run is then left
 * for `ralphtool finish`.
 */
export async function askCompletionChoice(
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  outcome: RunOutcome,
  branch: string,
  original: string,
  onInterrupt: () => void,
): Promise<CompletionChoice | null> {
  const rl = createInterface({ input, output, terminal: true });
  // In raw mode Ctrl-C reaches readline, not the process: treat it as the second Ctrl-C.
  rl.on('SIGINT', onInterrupt);
  // Ctrl-D or an input that ends closes the interface; a question then never gets its answer.
  const closed = new Promise<null>((resolve) => rl.once('close', () => resolve(null)));
  const ask = (query: string): Promise<string | null> =>
    Promise.race([rl.question(query).catch(() => null), closed]);
  try {
    output.write(
      `\nThe loop ended (${outcome}). What now?\n` +
        `  c  cleanup: back to ${original}, all the work left as uncommitted changes\n` +
        `  k  keep:    stay on ${branch}, one commit per story\n`,
    );
    for (;;) {
      const reply = await ask('Cleanup or keep? [C/k] ');
      if (reply === null) return null;
      const answer = reply.trim().toLowerCase();
      if (answer === '' || answer === 'c' || answer === 'cleanup') return 'cleanup';
      if (answer === 'k' || answer === 'keep') return 'keep';
      output.write('Please answer c (cleanup) or k (keep).\n');
    }
  } finally {
    rl.close();
  }
}
