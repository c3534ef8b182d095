import { UsageError } from '../core/errors.js';

/** Characters a backslash escapes inside double quotes (POSIX sh). */
const ESCAPABLE_IN_DOUBLE = new Set(['$', '`', '"', '\\', '\n']);

/**
 * Splits a command line (`--agent-command`, `--verify`) into a program and its arguments
 * the way a POSIX shell would (whitespace, '…', "…", backslashes), without running a shell:
 * `$VAR`, `|`, `;` and globs stay literal characters. `flag` names the option in errors.
 */
export function splitCommandLine(line: string, flag = '--agent-command'): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: "'" | '"' | null = null;

  for (let i = 0; i < line.length; i += 1) {
    const ch = line.charAt(i);
    if (quote === "'") {
      if (ch === "'") quote = null;
      else word += ch;
      continue;
    }
    if (ch === '\\') {
      if (i + 1 >= line.length) {
        throw new UsageError(`${flag} ends with a lone backslash: remove it or quote it.`);
      }
      const next = line.charAt(++i);
      if (quote === '"' && !ESCAPABLE_IN_DOUBLE.has(next)) word += ch + next;
      else if (next !== '\n') word += next;
      inWord = true;
      continue;
    }
    if (quote === '"') {
      if (ch === '"') quote = null;
      else word += ch;
      continue;
    }
    if (ch === "'" || ch === '"') {
      quote = ch;
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += ch;
      inWord = true;
    }
  }
  if (quote) {
    throw new UsageError(`${flag} has an unclosed ${quote} quote: close it or escape it.`);
  }
  if (inWord) words.push(word);
  return words;
}
