import path from 'node:path';

/** The scriptable fake agent (see its header for the scenario format). */
export const FAKE_AGENT = path.resolve('test/fixtures/agents/fake-agent.mjs');

export type { Scenario, Step } from './fake-agent-script.mjs';

/** Quotes a word for `--agent-command` / `--verify`, which are split into words like a shell would. */
export function quote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** `--agent command --agent-command "<node> <script>"` (the fake agent by default). */
export function fakeAgentFlags(script = FAKE_AGENT): string[] {
  return ['--agent', 'command', '--agent-command', `${quote(process.execPath)} ${quote(script)}`];
}

/** Story i (1-based) titled "Story i" with `tasks` tasks. */
export function stories(count: number, tasks = 1): { title: string; tasks: string[] }[] {
  return Array.from({ length: count }, (_, i) => ({
    title: `Story ${i + 1}`,
    tasks: Array.from({ length: tasks }, (_, j) => `do thing ${j + 1} of story ${i + 1}`),
  }));
}
