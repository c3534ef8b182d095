import type { AccountWindow } from '../core/account-window.js';
import { clockTime } from './clock.js';
import { oneLine } from './text.js';

/**
 * An account's window in one line, as `status` and the dashboard say it: `account
 * claude-3f9a0c12be47: 83% of the five_hour window used, resets 15:02 · limited until 15:02 by
 * the run of add-a (pid 4242)`. `self`: the change of the run it is shown for (its own limit is
 * "this run"'s).
 */
export function accountWindowText(window: AccountWindow, now: number, self?: string): string {
  const at = (iso: string): string => clockTime(Date.parse(iso), now);
  const parts: string[] = [];
  const usage = window.usage;
  if (usage !== null) {
    parts.push(
      `${usage.percent}% of the ${oneLine(usage.window ?? 'usage')} window used, resets ${at(usage.resetsAt)}`,
    );
  }
  const limit = window.limit;
  if (limit !== null) {
    const who =
      limit.change === self ? 'this run' : `the run of ${oneLine(limit.change)} (pid ${limit.pid})`;
    parts.push(`limited until ${at(limit.until)} by ${who}`);
  }
  return `account ${window.key}: ${parts.join(' · ')}`;
}
