/**
 * One word as a POSIX shell would read it back (splitCommandLine does), quoted when needed:
 * every command ralphtool prints for the user to run quotes its words with this.
 */
export function shellWord(word: string): string {
  if (/^[\w@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
