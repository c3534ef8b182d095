import type { Reach } from '../core/reach.js';
import type { Style } from '../format/style.js';

/** What a command may touch of the outside world; tests give their own. */
export interface CommandIO {
  cwd: string;
  /** The environment ralphtool was started with: what agents, git and commands get. */
  env: NodeJS.ProcessEnv;
  /**
   * The environment of ralphtool's own process, which the libraries it loads read (Ink reads
   * `CI`): `process.env`, given by main.ts. Absent (tests), `env` stands for it.
   */
  processEnv?: NodeJS.ProcessEnv;
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number; writableLength?: number };
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  style: Style;
  errStyle: Style;
  /** How messages should name ralphtool and openspec commands; absent: by their names. */
  reach?: Reach;
}
