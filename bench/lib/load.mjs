// The machine's load beside every report: the figures of a shared machine only mean something
// next to how busy it was (os.loadavg() at a benchmark's start and at its end).
import os from 'node:os';

/** `2026-11-29 04:20 UTC, 2 cores, load average 1.10 1.15 1.65 (1, 5, 15 min)`. */
export function loadLine() {
  const at = new Date().toISOString().slice(0, 16).replace('T', ' ');
  const load = os
    .loadavg()
    .map((v) => v.toFixed(2))
    .join(' ');
  return `${at} UTC, ${os.cpus().length} cores, load average ${load} (1, 5, 15 min)`;
}

/** Notes the load now; `report()` gives the lines "load at start" and "load at end". */
export function loadWatch() {
  const start = loadLine();
  return {
    start,
    report: () => [`load at start: ${start}`, `load at end:   ${loadLine()}`].join('\n'),
  };
}
