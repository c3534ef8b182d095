#!/usr/bin/env node
// One process of the user updating an account's file of the usage governor many times, as a
// run does (dist/checkpoint/account-file.js: read-modify-write under the file's lock).
// Usage: account-writer.mjs <file> limit|usage <index> <count>
//   limit: the count-th update records a limit ending at 2100-01-01 + index hours + count ms
//          (each one later than the one before); usage: a utilisation seen, no limit.
// Prints "ready" once loaded and starts on the first line of stdin, so that every writer of a
// test begins at the same moment without a sleep; prints "done" at the end.
import { createInterface } from 'node:readline';
import process from 'node:process';
import { updateAccountEntry } from '../../dist/checkpoint/account-file.js';
import { EMPTY_ACCOUNT, withLimit, withUsage } from '../../dist/core/account-window.js';

const [file, role, index, count] = process.argv.slice(2);
const n = Number(index);
const by = { change: `writer-${n}`, pid: process.pid, host: 'test', run: `run-${n}` };
const base = Date.parse('2100-01-01T00:00:00Z') + n * 3_600_000;

const lines = createInterface({ input: process.stdin });
process.stdout.write('ready\n');
await new Promise((resolve) => lines.once('line', resolve));
lines.close();
for (let i = 1; i <= Number(count); i += 1) {
  await updateAccountEntry(file, (entry) => {
    const now = entry ?? EMPTY_ACCOUNT('claude');
    if (role === 'usage') {
      const seenAt = new Date(Date.UTC(2099, 0, 1) + n * 1_000 + i).toISOString();
      const resetsAt = '2100-01-01T05:00:00.000Z';
      return withUsage(now, { percent: i % 100, resetsAt, window: 'five_hour', seenAt, by });
    }
    const until = new Date(base + i).toISOString();
    return withLimit(now, { until, by, kind: 'usage', source: 'test', message: `limit ${n}.${i}` });
  });
}
process.stdout.write('done\n');
