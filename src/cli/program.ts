import { groupOptions } from './help-groups.js';
import { environmentFailure } from '../core/error-details.js';
import { clean } from '../format/text.js';
import path from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { QuitNow, RalphError, UsageError } from '../core/errors.js';
import { didYouMean } from '../core/suggest.js';
import { ON_PATH, reachable } from '../core/reach.js';
import type { CommandIO } from './io.js';
import { packageVersion } from './version.js';
import {
  addAnswerOptions,
  addRunOptions,
  addUiWorktreeOptions,
  addWorktreeOptions,
  type RawRunFlags,
} from './run-flags.js';
import type { FinishFlags } from './commands/finish.js';
import type { WorkerFlags } from './commands/worker.js';
import { addFromOption, addPushOptions } from './remote-flags.js';
import { addWorkerOptions } from './worker-flags.js';
import { addSettingOptions } from './settings/flags.js';

/**
 * Builds the argv parser. Every action lazily imports its command, so `--help`
 * and `list` stay fast; each resolves to an exit code.
 */
export function buildProgram(io: CommandIO, setExit: (code: number) => void): Command {
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

  program
    .command('list')
    .option('-C, --cwd <dir>', 'run as if started in <dir>')
    .description('changes with task progress')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const { listCommand } = await import('./commands/list.js');
      setExit(await listCommand(io, { cwd: cwdOf(cmd), json: opts.json === true }));
    });

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

  groupOptions(
    addPushOptions(
      addWorktreeOptions(
        addRunOptions(
          program
            .command('run')
            .option('-C, --cwd <dir>', 'run as if started in <dir>')
            .description(
              'run the loop on a change; on several (or --all) at once, each in a worktree of its own',
            )
            .argument('[changes...]', 'change names')
            .addOption(
              new Option(
                '--force',
                'reuse an existing ralph/<change> branch that has no record (its old tip is saved under refs/ralphtool/<change>/forced/)',
              ),
            ),
        ),
      ),
    ),
  ).action(async (changes: string[], opts: RawRunFlags, cmd: Command) => {
    const { runCommand } = await import('./commands/run.js');
    setExit(await runCommand(io, { cwd: cwdOf(cmd), changes, flags: opts, mode: 'start' }));
  });

  groupOptions(
    addFromOption(
      addPushOptions(
        addWorktreeOptions(
          addAnswerOptions(
            addRunOptions(
              program
                .command('resume')
                .option('-C, --cwd <dir>', 'run as if started in <dir>')
                .description(
                  'continue an interrupted run from its last checkpoint, with the options it was started with and your own edits of tasks.md since it stopped (several, or --all)',
                )
                .argument('[changes...]', 'change names'),
            ),
          ),
        ),
      ),
      'continue it here',
    ),
  ).action(async (changes: string[], opts: RawRunFlags, cmd: Command) => {
    const { runCommand } = await import('./commands/run.js');
    setExit(await runCommand(io, { cwd: cwdOf(cmd), changes, flags: opts, mode: 'resume' }));
  });

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

  program
    .command('demo')
    .description('self-contained demonstration in a temporary repository (scripted agent, no AI)')
    .option('--json', 'write NDJSON events to stdout (the explanations go to stderr)')
    .action(async (opts: { json?: boolean }) => {
      const { demoCommand } = await import('./commands/demo.js');
      setExit(await demoCommand(io, { json: opts.json === true }));
    });

  program
    .command('doctor')
    .option('-C, --cwd <dir>', 'run as if started in <dir>')
    .description('checks git, the agent CLIs and the repository, with fixes')
    .action(async (_opts: unknown, cmd: Command) => {
      const { doctorCommand } = await import('./commands/doctor.js');
      setExit(await doctorCommand(io, { cwd: cwdOf(cmd) }));
    });

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

  addSettingOptions(
    program
      .command('config')
      .option('-C, --cwd <dir>', 'run as if started in <dir>')
      .description(
        'the settings a run started here uses (.ralphtool/config.yaml, then ~/.config/ralphtool/config.yaml) and where each comes from; a flag shows its own precedence',
      )
      .option('--json', 'print JSON'),
  ).action(async (opts: RawRunFlags, cmd: Command) => {
    const { configCommand } = await import('./commands/config.js');
    setExit(await configCommand(io, { cwd: cwdOf(cmd), flags: opts, json: opts.json === true }));
  });

  addWorkerOptions(
    addRunOptions(
      program
        .command('worker')
        .option('-C, --cwd <dir>', 'run as if started in <dir>')
        .description(
          'take up the changes with work left on a git remote one after another (run or resume --from, pushed, kept), until none is left; several workers on several clones share the changes',
        ),
    ),
  ).action(async (opts: WorkerFlags, cmd: Command) => {
    const { workerCommand } = await import('./commands/worker.js');
    setExit(await workerCommand(io, { cwd: cwdOf(cmd), flags: opts }));
  });

  // Any word left for the bare command is a command that does not exist (a typo of one).
  program.allowExcessArguments(true);
  addUiWorktreeOptions(addRunOptions(program)).action(async (opts: RawRunFlags, cmd: Command) => {
    const [word] = cmd.args;
    if (word !== undefined) {
      const names = program.commands.map((c) => c.name());
      throw new UsageError(
        `unknown command "${word}"${didYouMean(word, names)}: the commands are ${names.join(', ')} (\`ralphtool --help\` tells more)`,
      );
    }
    if (io.stdout.isTTY !== true || io.stdin.isTTY !== true) {
      // The UI needs a terminal; scripts get the usage instead (contract: exit 2).
      io.stderr.write(program.helpInformation());
      setExit(2);
      return;
    }
    const { uiCommand } = await import('./commands/ui.js');
    setExit(await uiCommand(io, { cwd: cwdOf(cmd), flags: opts }));
  });
  return program;
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
  const program = buildProgram(io, (c) => {
    code = c;
  });
  try {
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
