import { clean } from '../../format/text.js';
import { ON_PATH, reachable } from '../../core/reach.js';
import { UsageError } from '../../core/errors.js';
import type { RunEvent } from '../../core/events.js';
import { gateAgentChatter } from '../../run/output-gate.js';
import { surveyRemote } from '../../run/worker/survey.js';
import { runWorker } from '../../run/worker/worker.js';
import type { WorkerEvent } from '../../run/worker/worker-types.js';
import { stopWhenOutputCloses } from '../closed-output.js';
import type { CommandIO } from '../io.js';
import { parsedOr, parsePositiveDuration } from '../options.js';
import { ManyOutput } from '../render/many-output.js';
import { renderWorkList, workerLine, workerSummary } from '../render/worker-lines.js';
import { remoteName } from '../remote-flags.js';
import { toRunOptions, type RawRunFlags } from '../run-flags.js';
import { headlessQuit } from '../stop-signals.js';
import { checkWithSettings } from '../settings/check.js';
import { withSettings } from '../settings/load.js';
import { assertDirectory } from './cwd.js';

/** `worker`'s own flags beside the run options. */
export interface WorkerFlags extends RawRunFlags {
  watch?: string;
  list?: boolean;
}

/**
 * `ralphtool worker --from <remote>`: takes up the changes with work left on the remote one
 * after another (run/worker/worker.ts), each run's lines prefixed with its change, the
 * worker's choices on lines of their own, a summary at the end.
 */
export async function workerCommand(
  io: CommandIO,
  opts: { cwd: string; flags: WorkerFlags },
): Promise<number> {
  assertDirectory(opts.cwd);
  if (opts.flags.from === undefined) {
    throw new UsageError(
      'worker needs --from <remote>: the git remote whose changes it takes up (`git remote -v` lists them)',
    );
  }
  if (opts.flags.onComplete !== undefined && opts.flags.onComplete.trim() !== 'keep') {
    throw new UsageError(
      `worker keeps every run on its branch (pushed to the remote, for a person to merge): drop --on-complete ${opts.flags.onComplete}`,
    );
  }
  const remote = remoteName(opts.flags.from, '--from');
  const watchMs =
    opts.flags.watch === undefined
      ? null
      : parsedOr(opts.flags.watch, '--watch', parsePositiveDuration, 0);
  const settings = await withSettings(opts.cwd, io.env, opts.flags, 'start');
  const flags: RawRunFlags = { ...settings.flags, onComplete: 'keep' };
  checkWithSettings({ ...settings, flags }, false);
  const options = toRunOptions(flags, false);
  const reach = io.reach ?? ON_PATH;
  const place = {
    cwd: opts.cwd,
    remote,
    timeoutMs: options.commandTimeoutMs,
    claimTtlMs: options.claimTtlMs,
    env: io.env,
  };
  if (opts.flags.list === true) {
    const { choices } = await surveyRemote(place, new Set(), new Date(), true);
    if (options.json) io.stdout.write(`${JSON.stringify({ remote, changes: choices }, null, 2)}\n`);
    else io.stdout.write(reachable(renderWorkList(remote, choices, io.style), reach));
    return 0;
  }
  const stop = new AbortController();
  const output = stopWhenOutputCloses(
    io.stdout,
    stop,
    (m) => io.stderr.write(reachable(m, reach)),
    `ralphtool worker --from ${remote}`,
  );
  const out = new ManyOutput(output.write, io.style, options.json, reach, io.stdout.isTTY === true);
  const said = (event: WorkerEvent): void => {
    if (options.json) {
      const { type, ...rest } = event;
      output.write(`${JSON.stringify({ type, ts: new Date().toISOString(), ...rest })}\n`);
      return;
    }
    const line = workerLine(event, remote, io.style);
    if (line !== null) output.write(`${reachable(line, reach)}\n`);
  };
  const gates = new Map<string, (event: RunEvent) => void>();
  const gateOf = (change: string): ((event: RunEvent) => void) => {
    let gate = gates.get(change);
    if (gate === undefined) {
      gate = gateAgentChatter(io.stdout, (event) => out.event(change, event));
      gates.set(change, gate);
    }
    return gate;
  };
  const { quitting, remove } = headlessQuit(stop, (m) => io.stderr.write(reachable(m, reach)));
  try {
    const worked = runWorker(
      {
        place,
        options,
        watchMs,
      },
      {
        emit: (change, event) => gateOf(change)(event),
        said,
        notice: (change, message) =>
          io.stderr.write(
            `ralphtool: ${reachable(clean(change === null ? message : `[${change}] ${message}`), reach)}\n`,
          ),
        stop: stop.signal,
      },
    );
    const result = await Promise.race([worked, quitting]);
    said({ type: 'worker.ended', ...result });
    if (!options.json) output.write(`${workerSummary(result, remote, io.style).join('\n')}\n`);
    return result.exitCode;
  } finally {
    remove();
    output.remove();
  }
}
