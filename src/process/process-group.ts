import { errnoCode } from '../core/error-details.js';
/**
 * Children run in their own process group so that a timeout or a stop kills the
 * whole tree (an agent's shells, test runners, dev servers), not just the leader.
 * Live groups are remembered so that they die with ralphtool when it exits.
 */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const pgid of liveGroups) signalGroup(pgid, 'SIGKILL');
  });
}

export function trackGroup(pgid: number): void {
  installExitHook();
  liveGroups.add(pgid);
}

export function untrackGroup(pgid: number): void {
  liveGroups.delete(pgid);
}

/** Sends a signal to every process of a group; a group that is already gone is fine. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/** True while any process of the group is alive. */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return errnoCode(error) === 'EPERM';
  }
}
