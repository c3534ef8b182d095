import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { runPaths, writeFileWhole, type RunPaths } from '../../checkpoint/index.js';
import { locateRepo } from '../../git/repo.js';
import type { RunOptions } from '../options.js';
import { createNotifier, type Notifier, type NotifierConfig } from './notify.js';

// The notifications are part of a run's intent (docs/contract.md, "The run's intent"), but
// they may hold secrets (a webhook URL's token, a program's arguments): they are recorded in
// the run folder's own file, never in state.json, so no record pushed to a remote carries them.

/** Where a run's notifications go: `--notify` programs, `--notify-url` URLs, their time limit. */
export type NotifyTargets = Pick<RunOptions, 'notify' | 'notifyUrls' | 'notifyTimeoutMs'>;

const schema = z.object({
  notify: z.array(z.string()),
  notifyUrls: z.array(z.string()),
  notifyTimeoutMs: z.number().int().positive(),
});

/** `<run folder>/notify.json`: this machine's only, readable by the user alone. */
export function notifyFile(paths: RunPaths): string {
  return join(paths.dir, 'notify.json');
}

/** Whether this command line gives notifications (then they replace the recorded ones). */
export function notifyGiven(options: NotifyTargets): boolean {
  return options.notify.length > 0 || options.notifyUrls.length > 0;
}

/** Records the run's notifications (a start, or a resume that gives its own). */
export async function recordNotifyTargets(paths: RunPaths, targets: NotifyTargets): Promise<void> {
  const record: NotifyTargets = {
    notify: [...targets.notify],
    notifyUrls: [...targets.notifyUrls],
    notifyTimeoutMs: targets.notifyTimeoutMs,
  };
  await writeFileWhole(notifyFile(paths), `${JSON.stringify(record, null, 2)}\n`, 0o600);
}

/**
 * The notifications a command delivers: those it was given, else for a `resume` the ones the run
 * recorded (a resume as printed tells the same people as the run did). A record that cannot be
 * read is as none: notifications never stop a run.
 */
export async function notifyTargetsFor(req: {
  cwd: string;
  change: string;
  mode: 'start' | 'resume';
  options: NotifyTargets;
  timeoutMs: number;
  env: NodeJS.ProcessEnv;
}): Promise<NotifyTargets> {
  const given = {
    notify: req.options.notify,
    notifyUrls: req.options.notifyUrls,
    notifyTimeoutMs: req.options.notifyTimeoutMs,
  };
  if (req.mode === 'start' || notifyGiven(req.options)) return given;
  try {
    const repo = await locateRepo({ cwd: req.cwd, timeoutMs: req.timeoutMs, baseEnv: req.env });
    if (repo === null) return given;
    const file = notifyFile(runPaths(repo.gitCommonDir, req.change));
    if (!existsSync(file)) return given;
    return schema.parse(JSON.parse(readFileSync(file, 'utf8')));
  } catch {
    // Not a repository, an invalid change name (the launch says so), an unreadable record.
    return given;
  }
}

/**
 * A notifier whose targets are still being read (`notifyTargetsFor`): events wait, in order,
 * until they are known (a file read, before the run has said anything), then go on as
 * `createNotifier`'s do.
 */
export function notifierWith(
  config: Omit<NotifierConfig, 'programs' | 'urls' | 'timeoutMs'>,
  targets: Promise<NotifyTargets>,
): Notifier {
  let inner: Notifier | null = null;
  const waiting: ((notifier: Notifier) => void)[] = [];
  const ready = targets.then((t) => {
    const made = createNotifier({
      ...config,
      programs: t.notify,
      urls: t.notifyUrls,
      timeoutMs: t.notifyTimeoutMs,
    });
    inner = made;
    for (const pass of waiting.splice(0)) pass(made);
    return made;
  });
  return {
    emit(event) {
      if (inner !== null) inner.emit(event);
      else waiting.push((notifier) => notifier.emit(event));
    },
    fatal(message) {
      if (inner !== null) inner.fatal(message);
      else waiting.push((notifier) => notifier.fatal(message));
    },
    settled: () => ready.then((notifier) => notifier.settled()),
  };
}
