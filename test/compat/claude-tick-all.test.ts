// End to end: the REAL Claude Code binary, its model the scripted server, "marks all tasks done"
// with one Edit (replace_all) in every attempt. Each story must still get its own attempt
// (docs/contract.md, "An attempt works on its own story").
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import {
  claudeBinPath,
  claudeEnv,
  startModelServer,
  type ScriptedTurn,
} from '../support/model-server.js';
import { makeChangeRepo } from '../support/temp-repo.js';
import { scriptByAttempt } from './conversations.js';

const CHANGE = 'tick-everything';
const TASKS = `openspec/changes/${CHANGE}/tasks.md`;
const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type Event = { type: string; [key: string]: unknown };

describe('the real claude binary ticking every task of the change', () => {
  it('gets only its own story accepted each time: three stories, three attempts, three checkpoints', async () => {
    const repo = makeChangeRepo(CHANGE, [
      { title: 'Greeter', tasks: ['Create the greeter', 'Export it'] },
      { title: 'App', tasks: ['Call the greeter'] },
      { title: 'Docs', tasks: ['Write the usage notes'] },
    ]);
    cleanups.push(() => repo.remove());
    const file = path.join(repo.dir, TASKS);
    // Read tasks.md (Claude Code edits only files it has read), tick every box in one Edit.
    const tickAll: ScriptedTurn[] = [
      [{ tool: 'Read', input: { file_path: file } }],
      [
        {
          tool: 'Edit',
          input: { file_path: file, old_string: '- [ ]', new_string: '- [x]', replace_all: true },
        },
      ],
      [{ text: 'Marked all tasks done.\n\n<promise>COMPLETE</promise>' }],
    ];
    const server = await startModelServer(
      scriptByAttempt({ '1-1': tickAll, '2-1': tickAll, '3-1': tickAll }),
    );
    cleanups.push(() => server.close());
    const home = mkdtempSync(path.join(os.tmpdir(), 'ralphtool-e2e-home-'));
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));

    const result = await runCli(
      ['run', CHANGE, '--agent', 'claude', '--json', '--on-complete', 'keep'],
      {
        cwd: repo.dir,
        env: { ...claudeEnv(server.url, home), RALPHTOOL_CLAUDE_BIN: claudeBinPath() },
        timeoutMs: 240_000,
      },
    );
    expect(server.errors.map((e) => e.message)).toEqual([]);
    expect(result.exitCode, result.stderr).toBe(0);
    const events = result.stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Event);
    const of = (type: string): Event[] => events.filter((e) => e.type === type);

    expect(of('story.started').map((e) => `${String(e.storyId)}-${String(e.attempt)}`)).toEqual([
      '1-1',
      '2-1',
      '3-1',
    ]);
    expect(of('tasks.out-of-scope').map((e) => e.storyId)).toEqual(['1', '2']);
    expect(of('run.finished')[0]).toMatchObject({
      outcome: 'complete',
      storiesCompleted: 3,
      storiesTotal: 3,
    });
    expect(repo.git('log', '--format=%s').trim().split('\n').slice(0, 3)).toEqual([
      'checkpoint: 3',
      'checkpoint: 2',
      'checkpoint: 1',
    ]);
    // Story 1's checkpoint holds its own ticks only.
    const atStory1 = repo.git('show', `HEAD~2:${TASKS}`);
    expect(atStory1).toContain('- [x] 1.1');
    expect(atStory1).toContain('- [ ] 2.1');
    expect(atStory1).toContain('- [ ] 3.1');
  });
});
