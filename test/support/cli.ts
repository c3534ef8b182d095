import path from 'node:path';
import { execProgram, type ExecResult } from '../../src/process/exec.js';
import { refuseSpawnInContributorTier } from './tier-guard.js';

/** The built CLI, as a user runs it (npm test builds it first). */
export const CLI_PATH = path.resolve('dist/cli/main.js');

export interface CliRun extends ExecResult {
  /** stdout parsed as NDJSON, for `--json` runs. */
  events(): { type: string; [key: string]: unknown }[];
}

/** Runs `ralphtool <args>` as a real process and returns what it printed and its exit code. */
export async function runCli(
  args: readonly string[],
  options: {
    cwd: string;
    env?: Record<string, string | undefined>;
    timeoutMs?: number;
    input?: string;
  },
): Promise<CliRun> {
  refuseSpawnInContributorTier('ralphtool as a process');
  const result = await execProgram(process.execPath, [CLI_PATH, ...args], {
    baseEnv: process.env,
    cwd: options.cwd,
    env: { NO_COLOR: '1', FORCE_COLOR: undefined, ...options.env },
    timeoutMs: options.timeoutMs ?? 120_000,
    reject: false,
    ...(options.input !== undefined ? { input: options.input } : {}),
  });
  return {
    ...result,
    events: () =>
      result.stdout
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as { type: string; [key: string]: unknown }),
  };
}
