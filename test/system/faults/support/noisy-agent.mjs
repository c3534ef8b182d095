#!/usr/bin/env node
// An agent whose output is hostile to whoever reads it, one kind per story; every story's
// work is still done and ends with COMPLETE, so a run that copes completes every story.
//   story 1: invalid UTF-8, NUL bytes, ANSI/OSC escapes, bare CRs
//   story 2: one 200 MB line, then COMPLETE on a line of its own
//   story 3: a million tiny lines, then COMPLETE
// NOISY_MODE=signal-then-flood: any story says COMPLETE, then prints one 200 MB line that
// never ends (no newline before it exits).
import { readFileSync, writeFileSync } from 'node:fs';
import { Buffer } from 'node:buffer';
import process from 'node:process';

const change = process.env.RALPHTOOL_CHANGE ?? '';
const story = process.env.RALPHTOOL_STORY_ID ?? '1';
const mode = process.env.NOISY_MODE ?? 'by-story';
process.stdin.resume();
process.stdin.on('data', () => {});
await new Promise((resolve) => process.stdin.on('end', resolve));

/** Writes and waits for the pipe to take it, so memory stays flat on this side too. */
function out(chunk) {
  return new Promise((resolve) => {
    if (process.stdout.write(chunk)) resolve();
    else process.stdout.once('drain', resolve);
  });
}

writeFileSync(`src/story-${story}.txt`, `story ${story}\n`);
const tasks = `openspec/changes/${change}/tasks.md`;
writeFileSync(
  tasks,
  readFileSync(tasks, 'utf8').replace(new RegExp(`- \\[ \\] ${story}\\.`, 'g'), `- [x] ${story}.`),
);

const mb = Buffer.alloc(1024 * 1024, 'a');
if (mode === 'signal-then-flood') {
  await out('<promise>COMPLETE</promise>\n');
  for (let i = 0; i < 200; i++) await out(mb);
} else if (story === '1') {
  await out(Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0x0a]));
  await out(Buffer.from('nul\u0000in\u0000the\u0000middle\n'));
  await out('\u001b[31mred\u001b[0m \u001b]0;window title\u0007 \u001b[2J\u001b[H cleared\n');
  await out('bare\rcarriage\rreturns\r\n');
  await out(
    Buffer.concat([Buffer.from('half a char: '), Buffer.from([0xe2, 0x82]), Buffer.from('\n')]),
  );
  await out('<promise>COMPLETE</promise>\n');
} else if (story === '2') {
  for (let i = 0; i < 200; i++) await out(mb);
  await out('\n<promise>COMPLETE</promise>\n');
} else {
  const block = 'ok\n'.repeat(10_000);
  for (let i = 0; i < 100; i++) await out(block);
  await out('<promise>COMPLETE</promise>\n');
}
