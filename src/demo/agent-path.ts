import { fileURLToPath } from 'node:url';
import { shellWord } from '../core/shell-word.js';

/** Where the compiled demo agent lives: next to this module in dist/demo. */
export function demoAgentPath(): string {
  return fileURLToPath(new URL('./agent.js', import.meta.url));
}

/** `--agent-command` for the demo: this very node running the scripted agent. */
export function demoAgentCommandLine(nodePath: string, agentPath = demoAgentPath()): string {
  return [nodePath, agentPath].map(shellWord).join(' ');
}

/** `--verify` for the demo: the example project's own test suite. */
export function demoVerifyCommandLine(nodePath: string): string {
  return [nodePath, '--test'].map(shellWord).join(' ');
}
