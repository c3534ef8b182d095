import type { RunEvent } from '../../core/events.js';
import { fatalErrorMessage, isNotified, notifyMessage } from '../../core/notify-message.js';
import { redact, redactStrings } from '../../core/redact.js';
import { timed, toNdjsonLine } from '../ndjson.js';
import { secretsHere, workTreeFolders } from '../secrets.js';
import { runNotifyProgram } from './notify-program.js';
import { postNotification } from './notify-post.js';

/** A notification's time limit when `--notify-timeout` is not given. */
export const DEFAULT_NOTIFY_TIMEOUT_MS = 30_000;

export interface NotifierConfig {
  change: string;
  /** `--notify` command lines. */
  programs: readonly string[];
  /** `--notify-url` URLs. */
  urls: readonly string[];
  /** Limit for a program's run, and for each try of a POST. */
  timeoutMs: number;
  /** Where the programs run: the directory ralphtool was started in (or `-C`). */
  cwd: string;
  /** The environment programs start from (the command's). */
  env: NodeJS.ProcessEnv;
  /** Where every event goes on (the renderer); failures arrive here as `error` events. */
  next: (event: RunEvent) => void;
  /**
   * Holds `run.finished` back until every delivery has ended, so that a failure is reported
   * before it and it stays the last event (headless `run`, which waits for them anyway).
   */
  holdFinished: boolean;
  /** ralphtool's commands as the user's shell reaches them (`npx ralphtool …`). */
  phrase?: (message: string) => string;
}

export interface Notifier {
  /** Passes the event on and starts delivering it when people need to know of it. */
  emit: (event: RunEvent) => void;
  /**
   * The run ended by an error no `run.finished` reports (thrown out of the loop): told as an
   * `error` event, unless a `run.finished` was already told.
   */
  fatal: (message: string) => void;
  /**
   * Resolves once every delivery started so far has ended (each bounded by the time limit),
   * then passes on a held `run.finished`. Never rejects.
   */
  settled: () => Promise<void>;
}

/**
 * Tells people what they need to know of a run (docs/contract.md, "Notifications"): wraps the
 * event stream, and for each event of `NOTIFIED_EVENT_TYPES` runs every `--notify` program and
 * POSTs to every `--notify-url`. The loop never waits for a delivery; the deliveries to one
 * target are made one after the other, in the events' order, and targets are served side by
 * side. A failed delivery is a warning (`error`, `fatal: false`), never the run's end.
 */
export function createNotifier(config: NotifierConfig): Notifier {
  const targets: Target[] = [
    ...config.programs.map((commandLine): Target => ({ kind: 'program', commandLine })),
    ...config.urls.map((url): Target => ({ kind: 'url', url })),
  ];
  if (targets.length === 0) {
    return { emit: config.next, fatal: () => undefined, settled: () => Promise.resolve() };
  }
  const queues = targets.map(() => Promise.resolve());
  let question: { storyId: string; text: string } | null = null;
  let finishedTold = false;
  let held: RunEvent | null = null;
  const phrase = config.phrase ?? ((message: string) => message);

  // The .env files ralphtool can see: in the folder it was started in and up to the work tree's top.
  const folders = workTreeFolders(config.cwd);
  const deliver = (event: RunEvent, said: string): void => {
    // The --json line, with the human message as `text` (what chat webhooks show); what the
    // agent wrote may repeat a secret, which never goes to a program or a URL.
    const line = JSON.parse(toNdjsonLine(timed(event))) as Record<string, unknown>;
    const told = secretsHere(config.env, folders).then(
      (secrets) => {
        const message = redact(said, secrets);
        const payload = JSON.stringify(redactStrings({ ...line, text: said }, secrets));
        return { message, payload };
      },
      () => ({ message: said, payload: JSON.stringify({ ...line, text: said }) }),
    );
    targets.forEach((target, i) => {
      queues[i] = (queues[i] ?? Promise.resolve())
        .then(() => told)
        .then(({ message, payload }) => deliverTo(target, event.type, payload, message, config))
        .then(
          (failure) => {
            if (failure !== null) {
              config.next({
                type: 'error',
                message: `notification (${event.type}) not delivered: ${failure}`,
                fatal: false,
              });
            }
          },
          () => undefined,
        );
    });
  };

  return {
    emit(event) {
      if (event.type === 'story.blocked') {
        question = { storyId: event.storyId, text: event.question };
      }
      if (event.type === 'run.finished') finishedTold = true;
      if (event.type === 'run.finished' && config.holdFinished) held = event;
      else config.next(event);
      if (isNotified(event)) {
        deliver(event, phrase(notifyMessage(event, { change: config.change, question })));
      }
    },
    fatal(message) {
      if (finishedTold) return;
      finishedTold = true;
      deliver(
        { type: 'error', message, fatal: true },
        phrase(fatalErrorMessage(config.change, message)),
      );
    },
    async settled() {
      // A delivery's failure report never adds a delivery, so one pass over the queues is
      // enough; the loop covers an event emitted while waiting.
      let pending: Promise<void>[] = [];
      do {
        pending = [...queues];
        await Promise.all(pending);
      } while (queues.some((q, i) => q !== pending[i]));
      if (held !== null) {
        const event = held;
        held = null;
        config.next(event);
      }
    },
  };
}

type Target = { kind: 'program'; commandLine: string } | { kind: 'url'; url: string };

async function deliverTo(
  target: Target,
  type: string,
  payload: string,
  message: string,
  config: NotifierConfig,
): Promise<string | null> {
  if (target.kind === 'url') {
    const failure = await postNotification({
      url: target.url,
      body: payload,
      timeoutMs: config.timeoutMs,
    });
    return failure === null ? null : `--notify-url ${failure}`;
  }
  const failure = await runNotifyProgram({
    commandLine: target.commandLine,
    payload: `${payload}\n`,
    variables: {
      RALPHTOOL_EVENT: type,
      RALPHTOOL_CHANGE: config.change,
      RALPHTOOL_MESSAGE: message,
    },
    cwd: config.cwd,
    baseEnv: config.env,
    timeoutMs: config.timeoutMs,
  });
  return failure === null ? null : `--notify ${failure}`;
}
