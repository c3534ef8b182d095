import { QuitNow } from '../../core/errors.js';
import { loadInteractiveUi } from '../interactive.js';
import type { CommandIO } from '../io.js';
import { parseParallel, toRunOptions, type RawRunFlags } from '../run-flags.js';
import { noteHangUp } from '../stop-signals.js';
import { leaveOnTerm } from '../term-leave.js';
import { createUiController } from '../ui-controller.js';
import { assertDirectory } from './cwd.js';
import { checkWithSettings } from '../settings/check.js';
import { withSettings } from '../settings/load.js';

/** Bare `ralphtool` on a terminal: the interactive UI, with the run options for its runs. */
export async function uiCommand(
  io: CommandIO,
  opts: { cwd: string; flags: RawRunFlags },
): Promise<number> {
  assertDirectory(opts.cwd);
  // The runs the UI starts take every setting; those it resumes keep what their record says.
  const forStart = await withSettings(opts.cwd, io.env, opts.flags, 'start');
  const forResume = await withSettings(opts.cwd, io.env, opts.flags, 'resume');
  checkWithSettings(forStart, true);
  const options = {
    start: toRunOptions(forStart.flags, true),
    resume: toRunOptions(forResume.flags, true),
  };
  const parallel = parseParallel(forStart.flags.parallel);
  // A copy: loading the UI clears CI variables from this process, not from the agents'.
  const controller = createUiController(opts.cwd, options, { ...io.env }, io.reach, {
    parallel,
  });
  const renderApp = await loadInteractiveUi(io.processEnv ?? io.env);
  const term = leaveOnTerm(controller);
  // The terminal closed: nobody sees the UI any more. The live run is stopped (its attempt saved
  // and reverted) or its completion choice goes unanswered, the run is left for resume / finish,
  // then the CLI quits (by the SIGHUP itself, see main.ts).
  let hangUp = (): void => undefined;
  const hungUp = new Promise<never>((_, reject) => {
    hangUp = () => {
      noteHangUp();
      void controller.hangUp().then(
        () => reject(new QuitNow(130)),
        () => reject(new QuitNow(130)),
      );
    };
  });
  process.on('SIGHUP', hangUp);
  try {
    const code = await Promise.race([renderApp(controller, { leave: term.leave }), hungUp]);
    if (controller.quitAtOnce()) {
      io.stderr.write(
        'ralphtool: quit at once; any run in progress is left on disk: see `ralphtool status`, then `ralphtool resume <change>` or `ralphtool finish <change> --cleanup|--keep`\n',
      );
      throw new QuitNow(130);
    }
    if (term.terminated()) {
      io.stderr.write(
        'ralphtool: SIGTERM: quit; any run is left on disk: see `ralphtool status`, then `ralphtool resume <change>` or `ralphtool finish <change> --cleanup|--keep`\n',
      );
      throw new QuitNow(130);
    }
    // The UI is closed; ralphtool still must not end before the run's notifications are out.
    await controller.notificationsDelivered();
    return code;
  } finally {
    term.remove();
    process.off('SIGHUP', hangUp);
  }
}
