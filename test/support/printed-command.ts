/**
 * The commands ralphtool printed in backquotes that start with `program` (`ralphtool`, `git`),
 * each as the words a POSIX shell would give it: split at spaces, double or single quotes taken
 * off. Advice is run from these words, exactly as printed, so a test catches advice that would
 * not work when pasted.
 */
export function printedCommands(text: string, program: string): string[][] {
  const quoted = [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '');
  return quoted.filter((c) => c.startsWith(`${program} `)).map((c) => shellWords(c).slice(1));
}

/** The words of one command line as a shell splits it (no expansions: advice never needs them). */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  let quote: '"' | "'" | null = null;
  for (const char of line) {
    if (quote !== null) {
      if (char === quote) quote = null;
      else word = (word ?? '') + char;
    } else if (char === '"' || char === "'") {
      quote = char;
      word ??= '';
    } else if (char === ' ') {
      if (word !== null) words.push(word);
      word = null;
    } else {
      word = (word ?? '') + char;
    }
  }
  if (quote !== null) throw new Error(`unbalanced quote in ${line}`);
  if (word !== null) words.push(word);
  return words;
}
