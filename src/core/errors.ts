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
