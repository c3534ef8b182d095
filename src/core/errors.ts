/**
 * Errors that reach the user. The CLI turns each into one stderr line and an exit
 * code (contract "Exit codes"); anything else is a bug and is reported as such.
 */
export class RalphError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** Bad usage or bad input: unknown change, invalid name, malformed flag (exit 2). */
export class UsageError extends RalphError {
  constructor(message: string) {
    super(message, 2);
  }
}

/** Something failed at run time: git, an agent CLI, an unreadable state file (exit 1). */
export class RuntimeError extends RalphError {
  constructor(message: string) {
    super(message, 1);
  }
}

/**
 * Leave now with this exit code, without waiting for what is still running: a stuck agent's
 * pipes or the UI's timers must not hold the process open. A command throws it once it has
 * said why; the CLI's entry point then exits at once. Not a RalphError: it has nothing to print.
 */
export class QuitNow extends Error {
  constructor(readonly exitCode: number) {
    super(`quit at once (exit ${exitCode})`);
    this.name = new.target.name;
  }
}
