import { DescendantWatch } from './descendants.js';
import { isZombie, processesInGroup } from './proc.js';
import { signalGroup } from './process-group.js';

/**
 * How long the output pipes may stay open once everything ralphtool can find was killed: a
 * holder it cannot see (another user's process) must not keep the attempt from ending.
 */
export const DRAIN_MS = 1_000;

/** At most this many rounds of looking for strays and killing them (a daemon may fork on). */
const KILL_ROUNDS = 40;
const ROUND_MS = 50;
/** How often a process already on its way out is looked at until it is gone. */
const DYING_LOOK_MS = 5;

/**
 * How long a SIGKILLed group is given to be gone: on a loaded machine a killed process can take
 * longer to die than the pipes' drain, and the attempt must not end while one still runs.
 */
const KILLED_GROUP_MS = 5_000;

export interface Settling {
  pgid: number;
  watch: DescendantWatch | null;
  graceMs: number;
  /** Settles once the leader's stdout and stderr pipes closed. */
  pipesClosed: Promise<void>;
  /** Settles when a stop or a limit asks for it after the leader exited: no more waiting. */
  hurry: Promise<void>;
  /** Closes ralphtool's ends of the pipes, when some holder could not be killed. */
  destroyPipes: () => void;
}

/**
 * What happens once the leader of a process group exited: the outcome is decided, the rest is
 * tidying up, and the tree must be still before the attempt is judged or its files committed.
 * What it left running, in its group or out of it, gets SIGTERM and the grace period to end
 * (cut short by a stop, or by the pipes closing: a leftover that does not hold them is not
 * waited for); then everything still there is SIGKILLed, strays over and over until none is
 * found, and pipes that still do not close are given up on after DRAIN_MS.
 */
export async function settleAfterExit(s: Settling): Promise<void> {
  const groupLeft = signalGroup(s.pgid, 'SIGTERM');
  const strays = s.watch?.strays() ?? new Map<number, string>();
  DescendantWatch.signal(strays, 'SIGTERM');
  await firstOf(s.graceMs, s.pipesClosed, s.hurry);
  // Nothing left in the group (the usual case): no look at /proc.
  if (signalGroup(s.pgid, 'SIGKILL')) await groupGone(s.pgid);
  // Nothing of the program's was alive, in its group or out of it (the usual case): nothing can
  // have started since, so no second look at /proc.
  if (s.watch && (groupLeft || strays.size > 0)) await killStrays(s.watch);
  // What was seen on its way out (killed with a sandbox's namespace) is gone before the attempt
  // is judged, as everything killed here is.
  if (s.watch) await dyingGone(s.watch);
  if (
    !(await firstOf(
      DRAIN_MS,
      s.pipesClosed.then(() => true),
    ))
  )
    s.destroyPipes();
  s.watch?.close();
}

/** Waits (bounded) until no process of the group is alive (zombies are dead). */
async function groupGone(pgid: number): Promise<void> {
  const until = Date.now() + KILLED_GROUP_MS;
  while (processesInGroup(pgid).some((pid) => !isZombie(pid)) && Date.now() < until) {
    await firstOf(ROUND_MS);
  }
}

/**
 * Waits (bounded, as for a killed group) until no process seen on its way out is left; looked
 * at often, as one usually is gone within a millisecond or two.
 */
async function dyingGone(watch: DescendantWatch): Promise<void> {
  const until = Date.now() + KILLED_GROUP_MS;
  while (watch.dyingLeft() && Date.now() < until) await firstOf(DYING_LOOK_MS);
}

async function killStrays(watch: DescendantWatch): Promise<void> {
  for (let round = 0; round < KILL_ROUNDS; round += 1) {
    const strays = watch.strays();
    if (strays.size === 0) return;
    DescendantWatch.signal(strays, 'SIGKILL');
    await firstOf(ROUND_MS);
  }
}

/** The first of the promises to settle, or false after `ms`; its timer never outlives it. */
async function firstOf<T>(ms: number, ...promises: Promise<T>[]): Promise<T | false> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([timeout, ...promises]);
  } finally {
    clearTimeout(timer);
  }
}
