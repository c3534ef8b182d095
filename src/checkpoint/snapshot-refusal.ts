import { UsageError } from '../core/errors.js';

/**
 * The refusal of a start whose snapshot (`git add -A` of the user's files) failed: one line
 * naming the file, git's reason and what to do. Nothing has been changed at that point.
 */
export function snapshotRefusal(stderr: string): UsageError {
  const lines = stderr
    .replace(/\r/g, '')
    .split('\n')
    .map((line) => line.trim());
  const prefix = 'the run did not start and nothing was changed: git cannot save your files';
  const crlf = firstMatch(lines, /^fatal: ((?:CR)?LF would be replaced by (?:CR)?LF) in (.+)$/);
  if (crlf) {
    return new UsageError(
      `${prefix}: ${crlf[2] ?? ''}: core.safecrlf refuses it (${crlf[1] ?? ''}): give the file consistent line endings, or set \`git config core.safecrlf warn\`, then start again`,
    );
  }
  const filter = firstMatch(lines, /^fatal: (.+): clean filter '(.+)' failed$/);
  if (filter) {
    const cause = firstMatch(lines, /^error: (cannot run .+)$/);
    const name = filter[2] ?? '';
    return new UsageError(
      `${prefix}: ${filter[1] ?? ''}: its required clean filter '${name}' failed${cause ? ` (${cause[1] ?? ''})` : ''}: install or fix the filter's program (\`git config filter.${name}.clean\`), or stop requiring it (\`git config filter.${name}.required false\`), then start again`,
    );
  }
  const unreadable = firstMatch(lines, /^error: unable to index file '(.+)'$/);
  if (unreadable) {
    const cause = firstMatch(lines, /^error: open\(".*"\): (.+)$/);
    return new UsageError(
      `${prefix}: ${unreadable[1] ?? ''} cannot be read${cause ? ` (${cause[1] ?? ''})` : ''}: make it readable (or add it to .gitignore), then start again`,
    );
  }
  // Several lines can matter (a nested repository: "error: '<path>/' does not have a commit
  // checked out", then "fatal: adding files failed"): the last three distinct ones.
  const verdicts = [...new Set(lines.filter((line) => /^(fatal|error):/.test(line)))];
  if (verdicts.some((line) => line.includes('the remote end hung up unexpectedly'))) {
    // What git says when a long-running filter process (`filter.<name>.process`) dies.
    return new UsageError(
      `${prefix}: \`git add -A\` fails here (a long-running filter process stopped: fatal: the remote end hung up unexpectedly): fix or stop requiring the filter (\`git config --get-regexp '^filter\\.'\` lists them), then start again`,
    );
  }
  const verdict = verdicts.slice(-3).join(' | ') || 'git add failed';
  return new UsageError(
    `${prefix}: \`git add -A\` fails here (${verdict}): fix that, then start again`,
  );
}

function firstMatch(lines: readonly string[], pattern: RegExp): RegExpMatchArray | null {
  for (const line of lines) {
    const match = pattern.exec(line);
    if (match) return match;
  }
  return null;
}
