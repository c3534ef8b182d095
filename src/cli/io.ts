import type { Reach } from '../core/reach.js';
import type { Style } from '../format/style.js';

/** What a command may touch of the outside world; tests give their own. */
export interface CommandIO {
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number; writableLength?: number };
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  style: Style;
  errStyle: Style;
  /** How messages should name ralphtool and openspec commands; absent: by their names. */
  reach?: Reach;
}
