#!/usr/bin/env node
// A stand-in agent for the UI benchmark: prints `line <n> …` at PACED_RATE lines a second
// (in batches every 10 ms, as a busy agent does) for PACED_SECONDS, then waits to be stopped.
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';

const rate = Number(process.env.PACED_RATE ?? '20000');
const seconds = Number(process.env.PACED_SECONDS ?? '60');
for await (const chunk of process.stdin) void chunk;
const started = Date.now();
let n = 0;
while (Date.now() - started < seconds * 1000) {
  const due = Math.floor(((Date.now() - started) / 1000) * rate);
  let text = '';
  for (; n < due; n++) text += `line ${n}: compiling module ${n % 97} of the project\n`;
  if (text !== '' && !process.stdout.write(text)) {
    await new Promise((resolve) => process.stdout.once('drain', resolve));
  }
  await sleep(10);
}
await sleep(3_600_000);
