import { fileURLToPath } from 'node:url';

/** Where the compiled demo agent lives: next to this module in dist/demo. */
export function demoAgentPath(): string {
  return fileURLToPath(new URL('./agent.js', import.meta.url));
}

/** One word as a POSIX shell would read it back (splitCommandLine does), quoted when needed. */
export function shellWord(word: string): string {
  if (/^[\w@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** `--agent-command` for the demo: this very node running the scripted agent. */
export function demoAgentCommandLine(nodePath: string, agentPath = demoAgentPath()): string {
  return [nodePath, agentPath].map(shellWord).join(' ');
}

/** `--verify` for the demo: the example project's own test suite. */
export function demoVerifyCommandLine(nodePath: string): string {
  return [nodePath, '--test'].map(shellWord).join(' ');
}
