import { Option, type Command } from 'commander';
import { UsageError } from '../core/errors.js';
import { didYouMean } from '../core/suggest.js';
import { groupOptions } from './help-groups.js';
import type { CommandContext } from './program-context.js';
import {
  addAnswerOptions,
  addRunOptions,
  addUiWorktreeOptions,
  addWorktreeOptions,
  type RawRunFlags,
} from './run-flags.js';
import type { WorkerFlags } from './commands/worker.js';
import { addFromOption, addPushOptions } from './remote-flags.js';
import { addWorkerOptions } from './worker-flags.js';
import { addSettingOptions } from './settings/flags.js';

// The commands that take the run's options (run, resume, config, worker and the bare
// `ralphtool`, which opens the UI): their option tables and what those import (agents'
// programs, the settings' keys, the width of text) are loaded only for them and for
// `ralphtool --help`, not for `list` or `show` (program.ts).

export function defineRun(program: Command, { io, setExit, cwdOf }: CommandContext): void {
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
}

export function defineResume(program: Command, { io, setExit, cwdOf }: CommandContext): void {
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
}

export function defineConfig(program: Command, { io, setExit, cwdOf }: CommandContext): void {
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
}

export function defineWorker(program: Command, { io, setExit, cwdOf }: CommandContext): void {
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
}

/** The bare `ralphtool`: the terminal UI; a word left for it is a command that does not exist. */
export function defineBare(program: Command, { io, setExit, cwdOf }: CommandContext): void {
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
}
