// The independent review with the REAL Claude Code binary, whose model is the scripted server:
// the reviewer runs read-only (`--permission-mode plan`), so its Write is refused by Claude Code
// itself, and its verdict per scenario and its APPROVED are read from its real stream.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import {
  claudeBinPath,
  claudeEnv,
  startModelServer,
  type ScriptRequest,
} from '../support/model-server.js';
import type { ScriptedTurn } from '../support/model-server-response.js';
import { undoAfterEach } from '../support/e2e-cleanups.js';
import { scriptByAttempt } from './conversations.js';

const CHANGE = 'add-greeter';
const TASKS = `openspec/changes/${CHANGE}/tasks.md`;
const { later, repoWith } = undoAfterEach(CHANGE);

/** The text of the conversation's first user message (the prompt ralphtool gave). */
function firstPrompt(body: unknown): string {
  const messages = (body as { messages?: { role: string; content: unknown }[] }).messages ?? [];
  const first = messages.find((m) => m.role === 'user');
  const content = first?.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((p: { text?: unknown }) => (typeof p.text === 'string' ? p.text : ''))
    .join('\n');
}

function assistantTurns(body: unknown): number {
  const messages = (body as { messages?: { role: string }[] }).messages ?? [];
  return messages.filter((m) => m.role === 'assistant').length;
}

describe('ralphtool run --review with the real claude binary reviewing read-only', () => {
  it('the reviewer cannot write, and its verdict per scenario and APPROVED end the run complete', async () => {
    const repo = repoWith([{ title: 'Greeter module', tasks: ['Create the greeter'] }]);
    const at = (file: string): string => path.join(repo.dir, file);
    const work = scriptByAttempt({
      '1-1': [
        [
          {
            tool: 'Write',
            input: { file_path: at('src/greeter.js'), content: 'export const greet = 1;\n' },
          },
        ],
        [
          {
            tool: 'Bash',
            input: {
              command: `sed -i 's/^- \\[ \\] 1\\.1 /- [x] 1.1 /' ${TASKS}`,
              description: 'Tick 1.1',
            },
          },
        ],
        [{ text: 'Done.\n\n<promise>COMPLETE</promise>' }],
      ],
    });
    const review: ScriptedTurn[] = [
      [{ tool: 'Read', input: { file_path: at('src/greeter.js') } }],
      [{ tool: 'Write', input: { file_path: at('src/reviewer.txt'), content: 'edit\n' } }],
      [
        {
          text: '- [MET] Demo / Works: src/greeter.js exports greet\n\n<promise>APPROVED</promise>',
        },
      ],
    ];
    const server = await startModelServer((request: ScriptRequest) => {
      if (/^# Independent review/m.test(firstPrompt(request.body))) {
        return review[assistantTurns(request.body)] ?? [{ text: 'Done.' }];
      }
      return (work as (r: ScriptRequest) => ScriptedTurn)(request);
    });
    later(() => server.close());
    const home = mkdtempSync(path.join(os.tmpdir(), 'ralphtool-e2e-home-'));
    later(() => rmSync(home, { recursive: true, force: true }));

    const result = await runCli(
      ['run', CHANGE, '--agent', 'claude', '--review', '--json', '--on-complete', 'keep'],
      {
        cwd: repo.dir,
        env: { ...claudeEnv(server.url, home), RALPHTOOL_CLAUDE_BIN: claudeBinPath() },
        timeoutMs: 240_000,
      },
    );
    expect(server.errors.map((e) => e.message)).toEqual([]);
    expect(result.exitCode, result.stderr).toBe(0);
    const events = result.events();
    const finished = events.find((e) => e.type === 'review.finished');
    expect(finished).toMatchObject({
      verdict: 'approved',
      scenarios: [{ requirement: 'Demo', scenario: 'Works', met: true }],
    });
    expect(events.find((e) => e.type === 'review.started')).toMatchObject({ reviewer: 'claude' });
    // Read-only: Claude Code refused the reviewer's Write itself; the Read went through.
    const results = server.toolResults.filter((r) =>
      r.input?.file_path?.toString().includes('src/'),
    );
    expect(results.find((r) => r.tool === 'Read')?.isError).toBe(false);
    expect(
      results.find((r) => r.tool === 'Write' && String(r.input?.file_path).endsWith('reviewer.txt'))
        ?.isError,
    ).toBe(true);
    expect(existsSync(at('src/reviewer.txt'))).toBe(false);
    expect(events.find((e) => e.type === 'run.finished')).toMatchObject({ outcome: 'complete' });
  });
});
