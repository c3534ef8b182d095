import type { RunEvent } from '../../core/events.js';
import type { Style } from '../../format/style.js';
import { clean, clip, oneLine } from '../../format/text.js';
import { formatDuration } from '../../format/units.js';

type RemoteEvent = Extract<
  RunEvent,
  { type: 'claim.taken' | 'claim.lost' | 'remote.pushed' | 'remote.push-failed' }
>;

/** The progress lines of `--push`: the claim, and the remote's outages (each push is silent). */
export function remoteLines(event: RemoteEvent, s: Style, maxLine: number): string[] {
  const remote = clean(event.remote);
  switch (event.type) {
    case 'claim.taken':
      return [
        s.dim(`  claimed on ${remote}${event.tookOverFrom === undefined ? '' : ' (taken over)'}`),
      ];
    case 'claim.lost':
      return [
        s.red(`error: the claim on ${remote} was taken over by ${clean(event.holder)}: stopping`),
      ];
    case 'remote.pushed':
      return event.caughtUpAfter === undefined
        ? []
        : [
            s.dim(
              `  ⇡ ${remote} has caught up (after ${event.caughtUpAfter === 1 ? '1 failed push' : `${event.caughtUpAfter} failed pushes`})`,
            ),
          ];
    case 'remote.push-failed': {
      if (!pushFailedShown(event.failures, event.retryInMs)) return [];
      const failed = `  ⚠ push to ${remote} failed${event.failures > 1 ? ` (${event.failures} in a row)` : ''}: ${clip(oneLine(clean(event.message), ' | '), maxLine)}`;
      if (event.retryInMs !== null) {
        return [
          s.yellow(`${failed}; the run goes on; next try in ${formatDuration(event.retryInMs)}`),
        ];
      }
      // Never clipped: the command is what the user needs whole.
      const refspecs = event.refspecs.map((r) => (r.includes('*') ? `'${r}'` : r)).join(' ');
      return [
        s.yellow(failed),
        s.yellow(
          `  the remote does not have the run's last steps; this sends them: git push ${remote} ${refspecs}`,
        ),
      ];
    }
  }
}

/**
 * A remote that stays unreachable is said at its first failed push, then at the 2nd, 4th, 8th…
 * (the pauses between tries double too), and at the run's last try.
 */
function pushFailedShown(failures: number, retryInMs: number | null): boolean {
  return retryInMs === null || (failures & (failures - 1)) === 0;
}
