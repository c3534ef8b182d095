import { environmentFailure } from '../core/error-details.js';
import { clean } from '../format/clean.js';
import path from 'node:path';
import { Command, CommanderError } from 'commander';
import { QuitNow, RalphError, UsageError } from '../core/errors.js';
import { ON_PATH, reachable } from '../core/reach.js';
import type { CommandIO } from './io.js';
import type { CommandContext } from './program-context.js';
import { packageVersion } from './version.js';
import type { FinishFlags } from './commands/finish.js';
import type * as RunModule from './program-run.js';

type Define = (program: Command, context: CommandContext) => void;
type RunDefinitions = typeof RunModule;

/**
 * The commands in the order `--help` lists them, each with where its definition lives: the
 * ones taking the run's options are in program-run.ts, whose option tables (and what they
 * import) only those commands and the whole program's help load.
 */
const COMMANDS: readonly (readonly [string, Define | keyof RunDefinitions])[] = [
  ['list', defineList],
  ['show', defineShow],
  ['run', 'defineRun'],
  ['resume', 'defineResume'],
  ['finish', defineFinish],
  ['status', defineStatus],
  ['report', defineReport],
  ['demo', defineDemo],
  ['doctor', defineDoctor],
  ['init', defineInit],
  ['config', 'defineConfig'],
  ['worker', 'defineWorker'],
];

/**
 * The command a command line names when nothing but the program's `-C <dir>` comes before
 * it; null for any other line (the bare UI, `help`, `--help`, a typo, a run option first),
 * which gets the whole program.
 */
export function namedCommand(argv: readonly string[]): string | null {
  let i = 0;
  while (i < argv.length) {
    const word = argv[i] ?? '';
    if (word === '-C' || word === '--cwd') i += 2;
    else if (word.startsWith('--cwd=') || (word.startsWith('-C') && word.length > 2)) i += 1;
    else break;
  }
  const word = argv[i];
  return COMMANDS.some(([name]) => name === word) ? (word ?? null) : null;
}

/**
 * Builds the argv parser. Every action lazily imports its command; a command line that names
 * its command (`namedCommand`) gets a program of that one command, which parses, helps and
 * refuses it exactly as the whole program does (test/cli/program-lazy.test.ts), so `list`
 * loads no other command's options. Each action resolves to an exit code.
 */
export async function buildProgram(
  io: CommandIO,
  setExit: (code: number) => void,
  only: string | null = null,
): Promise<Command> {
  const program = new Command('ralphtool');
  program
    .description(
      'Runs an AI coding agent through an OpenSpec change one story at a time, with git checkpoints.',
    )
    .version(packageVersion(), '--version', 'print the version')
    .option('-C, --cwd <dir>', 'run as if started in <dir> (like git -C)')
    // Options after a command belong to it: `run x --agent command` must not feed the UI's flags.
    .enablePositionalOptions()
    .showHelpAfterError('(run `ralphtool --help` for usage)')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      // One prefix for every error, whoever found it: commander's own say `error:`.
      outputError: (text, write) =>
        write(reachable(text.replace(/^error: /, 'ralphtool: '), io.reach ?? ON_PATH)),
    });

  const cwdOf = (cmd: Command): string => {
    // -C may come before the command (like git) or after it.
    const own = cmd.opts<{ cwd?: string }>().cwd;
    const global = program.opts<{ cwd?: string }>().cwd;
    return resolveCwd(io.cwd, own ?? global);
  };
  const context: CommandContext = { io, setExit, cwdOf };

  const chosen = COMMANDS.filter(([name]) => only === null || name === only);
  const needsRun = only === null || chosen.some(([, define]) => typeof define === 'string');
  const run = needsRun ? await import('./program-run.js') : null;
  for (const [, define] of chosen) {
    if (typeof define !== 'string') define(program, context);
    else run?.[define](program, context);
  }
  if (only === null) run?.defineBare(program, context);
  return program;
}

function defineList(program: Command, { io, setExit, cwdOf }: CommandContext): void {
  program
    .command('list')
    .option('-C, --cwd <dir>', 'run as if started in <dir>')
    .description('changes with task progress')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const { listCommand } = await import('./commands/list.js');
      setExit(await listCommand(io, { cwd: cwdOf(cmd), json: opts.json === true }));
    });
}

function defineShow(program: Command, { io, setExit, cwdOf }: CommandContext): void {
  program
    .command('show')
    .option('-C, --cwd <dir>', 'run as if started in <dir>')
    .description('stories, tasks and scenarios of one change')
    .argument('<change>', 'change name')
    .option('--json', 'print JSON')
    .action(async (change: string, opts: { json?: boolean }, cmd: Command) => {
      const { showCommand } = await import('./commands/show.js');
      setExit(await showCommand(io, { cwd: cwdOf(cmd), change, json: opts.json === true }));
    });
}

function defineFinish(program: Command, { io, setExit, cwdOf }: CommandContext): void {
  program
    .command('finish')
    .option('-C, --cwd <dir>', 'run as if started in <dir>')
    .description('apply a completion option to a run that is not active')
    .argument('<change>', 'change name')
    .option('--cleanup', 'back to the original branch, the work left uncommitted')
    .option('--keep', 'stay on ralph/<change>, one commit per story')
    .option(
      '--prune',
      "also delete the run's attempt refs (but the one saving what finish found) and its folder",
    )
    .option('--command-timeout <seconds>', 'limit for each git command (default: 30)')
    .option(
      '--from <remote>',
      'fetch the run from this git remote first (a run that ran on another machine), then end it here',
    )
    .action(async (change: string, opts: FinishFlags, cmd: Command) => {
      const { finishCommand } = await import('./commands/finish.js');
      setExit(await finishCommand(io, { cwd: cwdOf(cmd), change, flags: opts }));
    });
}

function defineStatus(program: Command, { io, setExit, cwdOf }: CommandContext): void {
  program
    .command('status')
    .option('-C, --cwd <dir>', 'run as if started in <dir>')
    .description('runs recorded in this repository and their state')
    .option('--json', 'print JSON')
    .option('--remote <remote>', 'the runs recorded on this git remote instead, and their claims')
    .action(async (opts: { json?: boolean; remote?: string }, cmd: Command) => {
      const { statusCommand } = await import('./commands/status.js');
      setExit(
        await statusCommand(io, {
          cwd: cwdOf(cmd),
          json: opts.json === true,
          ...(opts.remote === undefined ? {} : { remote: opts.remote }),
        }),
      );
    });
}

function defineReport(program: Command, { io, setExit, cwdOf }: CommandContext): void {
  program
    .command('report')
    .option('-C, --cwd <dir>', 'run as if started in <dir>')
    .description("what a recorded run did, per story (a pull request's body with --markdown)")
    .argument('<change>', 'change name')
    .option('--markdown', 'a GitHub-flavoured Markdown table')
    .option('--json', 'print JSON')
    .action(async (change: string, opts: { markdown?: boolean; json?: boolean }, cmd: Command) => {
      if (opts.markdown === true && opts.json === true) {
        throw new UsageError('report takes --markdown or --json, not both');
      }
      const { reportCommand } = await import('./commands/report.js');
      setExit(
        await reportCommand(io, {
          cwd: cwdOf(cmd),
          change,
          markdown: opts.markdown === true,
          json: opts.json === true,
        }),
      );
    });
}

function defineDemo(program: Command, { io, setExit }: CommandContext): void {
  program
    .command('demo')
    .description('self-contained demonstration in a temporary repository (scripted agent, no AI)')
    .option('--json', 'write NDJSON events to stdout (the explanations go to stderr)')
    .action(async (opts: { json?: boolean }) => {
      const { demoCommand } = await import('./commands/demo.js');
      setExit(await demoCommand(io, { json: opts.json === true }));
    });
}

function defineDoctor(program: Command, { io, setExit, cwdOf }: CommandContext): void {
  program
    .command('doctor')
    .option('-C, --cwd <dir>', 'run as if started in <dir>')
    .description('checks git, the agent CLIs and the repository, with fixes')
    .action(async (_opts: unknown, cmd: Command) => {
      const { doctorCommand } = await import('./commands/doctor.js');
      setExit(await doctorCommand(io, { cwd: cwdOf(cmd) }));
    });
}

function defineInit(program: Command, { io, setExit, cwdOf }: CommandContext): void {
  program
    .command('init')
    .option('-C, --cwd <dir>', 'run as if started in <dir>')
    .option('--yes', 'write it without asking (needed without a terminal)')
    .description(
      "writes the repository's .ralphtool/config.yaml, commented, from what doctor finds (the agents installed, a verify command inferred from the project); asks first, never overwrites",
    )
    .action(async (opts: { yes?: boolean }, cmd: Command) => {
      const { initCommand } = await import('./commands/init.js');
      setExit(await initCommand(io, { cwd: cwdOf(cmd), yes: opts.yes === true }));
    });
}

function resolveCwd(base: string, given: string | undefined): string {
  if (given === undefined) return base;
  if (given.trim() === '') throw new UsageError('-C: the directory is empty');
  return path.resolve(base, given);
}

/** How the program ended. */
export interface ProgramEnd {
  exitCode: number;
  /** Leave without waiting for the event loop to drain (a command threw QuitNow). */
  atOnce: boolean;
}

/** Runs the program on argv; the only place errors become exit codes. */
export async function runProgram(argv: readonly string[], io: CommandIO): Promise<ProgramEnd> {
  let code = 0;
  try {
    const program = await buildProgram(
      io,
      (c) => {
        code = c;
      },
      namedCommand(argv),
    );
    await program.parseAsync([...argv], { from: 'user' });
    return { exitCode: code, atOnce: false };
  } catch (error) {
    if (error instanceof QuitNow) return { exitCode: error.exitCode, atOnce: true };
    return { exitCode: reportError(error, io), atOnce: false };
  }
}

function reportError(error: unknown, io: CommandIO): number {
  if (error instanceof CommanderError) {
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return 0;
    if (error.code === 'commander.help') return 0;
    // Commander already printed its one-line message.
    return 2;
  }
  if (error instanceof RalphError) {
    // Messages carry outside text (a remote's host names, an agent's words): never raw control
    // sequences on the user's terminal.
    const message = reachable(clean(error.message), io.reach ?? ON_PATH);
    io.stderr.write(`${io.errStyle.red('ralphtool:')} ${message}\n`);
    return error.exitCode;
  }
  // The machine refused a write (a full disk, a read-only folder): not a bug, one line.
  const refused = environmentFailure(error);
  if (refused !== null) {
    io.stderr.write(`${io.errStyle.red('ralphtool:')} ${clean(refused)}\n`);
    return 1;
  }
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  io.stderr.write(
    `${io.errStyle.red('ralphtool: internal error')} (a bug; please report it with this output)\n${detail}\n`,
  );
  return 1;
}
