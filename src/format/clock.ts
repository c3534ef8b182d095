/**
 * A moment as the user's wall clock shows it (local time): `15:02` on the same day as `now`,
 * `2026-11-24 15:02` on another, so that a reset tomorrow is not read as one today.
 */
export function clockTime(at: number, now: number): string {
  const when = new Date(at);
  const hhmm = `${pad(when.getHours())}:${pad(when.getMinutes())}`;
  const today = new Date(now);
  const sameDay =
    when.getFullYear() === today.getFullYear() &&
    when.getMonth() === today.getMonth() &&
    when.getDate() === today.getDate();
  if (sameDay) return hhmm;
  return `${when.getFullYear()}-${pad(when.getMonth() + 1)}-${pad(when.getDate())} ${hhmm}`;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}
