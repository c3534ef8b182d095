import type { Command } from 'commander';
import type { CommandIO } from './io.js';

/** What each command's definition in the program needs (program.ts, program-run.ts). */
export interface CommandContext {
  io: CommandIO;
  setExit: (code: number) => void;
  /** The folder the command runs in: its own -C, else the program's, else the current one. */
  cwdOf: (cmd: Command) => string;
}
