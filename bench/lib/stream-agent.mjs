#!/usr/bin/env node
// A stand-in agent that floods ralphtool with output as fast as it can write, then does the
// story's work (ticks task 1.1) and says COMPLETE. Run as `claude` (RALPHTOOL_CLAUDE_BIN) it prints
// Claude Code 2.1 stream-json: assistant messages with text and tool calls, and the tool results
// Claude Code echoes as `user` lines — the bulk of a real stream. As a `command` agent it prints
// tiny text lines.
//
//   STREAM_FORMAT  claude | plain      STREAM_BYTES  bytes to print (claude)
//   STREAM_LINES   lines to print (plain)
import { readFileSync, writeFileSync } from 'node:fs';
import { Buffer } from 'node:buffer';
import { once } from 'node:events';
import path from 'node:path';
import process from 'node:process';

const format = process.env.STREAM_FORMAT ?? 'claude';

// Before a run, ralphtool asks `claude auth status` (src/agents/login-status.ts): answer as Claude
// Code does. A flood here would be measured as the stream's cost (it once was: 200 MB into the
// login check, 0.6 GB of the run's peak memory).
if (process.argv[2] === 'auth' && process.argv[3] === 'status') {
  process.stdout.write(`${JSON.stringify({ loggedIn: true, authMethod: 'api_key' })}\n`);
  process.exit(0);
}
const session = '1fd8a8b6-fce7-44b6-9790-076ac43d16b7';

// Claude Code's stdin is the prompt: read it all so ralphtool's write never blocks.
for await (const chunk of process.stdin) void chunk;

const usage = {
  input_tokens: 12,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 4096,
  output_tokens: 85,
  service_tier: 'standard',
};
const line = (value) => `${JSON.stringify(value)}\n`;
const assistant = (content, n) =>
  line({
    type: 'assistant',
    message: {
      id: `msg_${n}`,
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-6',
      content,
      stop_reason: null,
      stop_sequence: null,
      usage,
    },
    parent_tool_use_id: null,
    session_id: session,
    uuid: `a-${n}`,
  });

/** One turn of a working agent: a thought, a tool call, and the tool's (large) result. */
function turn(n) {
  const fileText = `${'export function step() { return 1; } // a line of a file the agent read\n'.repeat(50)}`;
  return [
    assistant(
      [{ type: 'text', text: `Now I read the next file (step ${n}) to see what it exports.` }],
      n,
    ),
    assistant(
      [
        {
          type: 'tool_use',
          id: `toolu_${n}`,
          name: 'Read',
          input: { file_path: `/repo/src/f${n}.ts` },
        },
      ],
      n,
    ),
    line({
      type: 'user',
      message: {
        role: 'user',
        content: [{ tool_use_id: `toolu_${n}`, type: 'tool_result', content: fileText }],
      },
      parent_tool_use_id: null,
      session_id: session,
      uuid: `u-${n}`,
      tool_use_result: {
        type: 'text',
        file: { filePath: `/repo/src/f${n}.ts`, content: fileText },
      },
    }),
  ].join('');
}

async function write(text) {
  if (!process.stdout.write(text)) await once(process.stdout, 'drain');
}

if (format === 'claude') {
  const bytes = Number(process.env.STREAM_BYTES ?? '0');
  await write(
    line({
      type: 'system',
      subtype: 'init',
      cwd: process.cwd(),
      session_id: session,
      model: 'claude-sonnet-4-6',
      claude_code_version: '2.1.197',
    }),
  );
  // The stand-in must outrun ralphtool, or it measures itself: 8 batches of ~1 MiB of turns are
  // made once and written in turn (as bytes), so its own cost is a write per MiB.
  const batches = [];
  for (let n = 0; batches.length < 8;) {
    let batch = '';
    while (batch.length < 1 << 20) batch += turn(n++);
    batches.push(Buffer.from(batch));
  }
  let sent = 0;
  for (let i = 0; sent < bytes; i++) {
    const batch = batches[i % batches.length];
    await write(batch);
    sent += batch.length;
  }
} else {
  const lines = Number(process.env.STREAM_LINES ?? '0');
  for (let i = 0; i < lines;) {
    let batch = '';
    for (let k = 0; k < 10_000 && i < lines; k++, i++) batch += `line ${i}\n`;
    await write(batch);
  }
}

const tasks = path.join('openspec/changes', process.env.RALPHTOOL_CHANGE ?? '', 'tasks.md');
writeFileSync(tasks, readFileSync(tasks, 'utf8').replace('- [ ] 1.1', '- [x] 1.1'));
writeFileSync('src/flooded.txt', 'done\n');

const answer = 'The story is done.\n<promise>COMPLETE</promise>';
if (format === 'claude') {
  await write(assistant([{ type: 'text', text: answer }], 'last'));
  await write(
    line({
      type: 'result',
      subtype: 'success',
      is_error: false,
      duration_ms: 1000,
      num_turns: 3,
      result: answer,
      session_id: session,
      total_cost_usd: 0.01,
      usage,
    }),
  );
} else {
  await write(`${answer}\n`);
}
