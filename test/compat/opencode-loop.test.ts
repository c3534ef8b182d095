// End to end: `ralphtool run --agent opencode` drives the REAL OpenCode binary, whose model is
// the scripted server (Anthropic Messages API through OpenCode's bundled provider), through
// real write/read/edit/bash tool calls in a real repository.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, type CliRun } from '../support/cli.js';
import { startModelServer, type ModelServer, type ScriptedTurn } from '../support/model-server.js';
import { OPENCODE_MODEL, opencodeBinPath, opencodeEnv } from '../support/model-server-opencode.js';
import type { TempRepo } from '../support/temp-repo.js';
import { undoAfterEach } from '../support/e2e-cleanups.js';
import { promptsSeen, scriptByAttempt, type AttemptPlans } from './conversations.js';

const CHANGE = 'add-greeter';
const TASKS = `openspec/changes/${CHANGE}/tasks.md`;
// OpenCode starts slowly (14-50 s a run here, minutes on a loaded machine) and makes a model
// request per step: these runs are long.
const TEST_TIMEOUT_MS = 900_000;
const { later, repoWith } = undoAfterEach(CHANGE);

type Event = { type: string; [key: string]: unknown };

async function serve(plans: AttemptPlans): Promise<ModelServer> {
  const server = await startModelServer(scriptByAttempt(plans));
  later(() => server.close());
  return server;
}

/** `ralphtool run <change> --agent opencode --model scripted/model-1 --json`. */
async function runRalph(
  repo: TempRepo,
  server: ModelServer,
  extra: string[] = [],
): Promise<CliRun> {
  const home = mkdtempSync(path.join(os.tmpdir(), 'ralphtool-e2e-opencode-home-'));
  later(() => rmSync(home, { recursive: true, force: true }));
  const args = [
    'run',
    CHANGE,
    '--agent',
    'opencode',
    '--model',
    OPENCODE_MODEL,
    '--json',
    '--on-complete',
    'keep',
    ...extra,
  ];
  const result = await runCli(args, {
    cwd: repo.dir,
    env: { ...opencodeEnv(server.url, home), RALPHTOOL_OPENCODE_BIN: opencodeBinPath() },
    timeoutMs: TEST_TIMEOUT_MS - 30_000,
  });
  // A throwing script is a broken test, not a product failure: say so plainly.
  expect(server.errors.map((e) => e.message)).toEqual([]);
  return result;
}

function ofType(events: Event[], type: string): Event[] {
  return events.filter((e) => e.type === type);
}

/** Read tasks.md, then tick each task with OpenCode's edit tool (it edits only files it read). */
function tickWithEdit(repo: TempRepo, ids: string[]): ScriptedTurn[] {
  const filePath = path.join(repo.dir, TASKS);
  return [
    [{ tool: 'read', input: { filePath } }],
    ...ids.map((id) => [
      {
        tool: 'edit',
        input: { filePath, oldString: `- [ ] ${id} `, newString: `- [x] ${id} ` },
      },
    ]),
  ];
}

const complete = (note: string): ScriptedTurn => [
  { text: `${note}\n\n<promise>COMPLETE</promise>` },
];

describe('ralphtool run with the real opencode binary and a scripted model', () => {
  it(
    'completes a story with real tool calls, reports tokens and cost, and commits it',
    async () => {
      const repo = repoWith([{ title: 'Greeter', tasks: ['Create the greeter', 'Export it'] }]);
      const at = (file: string): string => path.join(repo.dir, file);
      const server = await serve({
        '1-1': [
          [
            { text: 'Creating the greeter.' },
            {
              tool: 'write',
              input: {
                filePath: at('src/greeter.js'),
                content: 'export const greet = (name) => `hello ${name}`;\n',
              },
            },
          ],
          ...tickWithEdit(repo, ['1.1']),
          [
            {
              tool: 'bash',
              input: {
                command: `sed -i 's/^- \\[ \\] 1\\.2 /- [x] 1.2 /' ${TASKS}`,
                description: 'Tick task 1.2',
              },
            },
          ],
          complete('The greeter exists and is exported.'),
        ],
      });

      const result = await runRalph(repo, server);
      const events = result.events();

      expect(result.stderr).toBe('');
      expect(result.exitCode).toBe(0);
      // Every scripted tool call really ran in OpenCode and succeeded.
      expect(server.toolResults.filter((r) => r.isError)).toEqual([]);
      expect(server.toolResults.map((r) => r.tool)).toEqual(['write', 'read', 'edit', 'bash']);
      const tools = ofType(events, 'agent.tool');
      expect(tools.map((e) => e['name'])).toEqual(['write', 'read', 'edit', 'bash']);
      expect(tools[0]).toMatchObject({ storyId: '1', attempt: 1, summary: 'src/greeter.js' });
      expect(ofType(events, 'agent.message').map((e) => e['text'])).toContain(
        'Creating the greeter.',
      );
      // One account per attempt: its four model round trips, priced by the config's model.
      const results = ofType(events, 'agent.result');
      expect(results).toHaveLength(1);
      expect(results[0]).toMatchObject({ storyId: '1', isError: false, turns: 5 });
      expect(results[0]?.['costUsd']).toBeGreaterThan(0);
      const tokens = results[0]?.['tokens'] as Record<string, number>;
      expect(tokens['input']).toBeGreaterThan(0);
      expect(tokens['output']).toBeGreaterThan(0);
      expect(ofType(events, 'attempt.failed')).toEqual([]);
      expect(events.at(-1)).toMatchObject({
        type: 'run.finished',
        outcome: 'complete',
        choice: 'keep',
        storiesCompleted: 1,
      });

      expect(repo.git('log', '--format=%s').trim().split('\n')).toEqual([
        'checkpoint: 1',
        'initial state',
        'initial commit',
      ]);
      expect(repo.git('show', 'HEAD:src/greeter.js')).toContain('hello ${name}');
      expect(repo.git('show', `HEAD:${TASKS}`).match(/- \[x\]/g)).toHaveLength(2);
      expect(repo.git('status', '--porcelain')).toBe('');
      expect(existsSync(at('.opencode'))).toBe(false);

      // The prompt reached the model intact through stdin, and the raw stream was kept.
      const runDir = path.join(repo.dir, '.git', 'ralphtool', CHANGE);
      const prompt = readFileSync(path.join(runDir, 'prompts', '1-1.md'), 'utf8');
      expect(promptsSeen(server).get('1-1')).toContain(prompt.trim());
      const transcript = readFileSync(path.join(runDir, 'transcripts', '1-1.ndjson'), 'utf8');
      expect(transcript).toContain('"type":"step_finish"');
      expect(transcript).toContain('<promise>COMPLETE</promise>');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'reverts a FAILED attempt and tells the next attempt why',
    async () => {
      const repo = repoWith([{ title: 'Parser', tasks: ['Parse the input'] }]);
      const at = (file: string): string => path.join(repo.dir, file);
      const reason = 'the parser needs a tokenizer that does not exist yet';
      const server = await serve({
        '1-1': [
          [{ tool: 'write', input: { filePath: at('src/draft-parser.js'), content: 'draft\n' } }],
          [{ text: `I am stuck.\n<promise>FAILED: ${reason}</promise>` }],
        ],
        '1-2': [...tickWithEdit(repo, ['1.1']), complete('Parsed.')],
      });

      const result = await runRalph(repo, server);
      const events = result.events();

      expect(result.exitCode).toBe(0);
      expect(ofType(events, 'attempt.failed')).toEqual([
        expect.objectContaining({ storyId: '1', attempt: 1, kind: 'failed-signal', reason }),
      ]);
      expect(events.at(-1)).toMatchObject({ type: 'run.finished', outcome: 'complete' });
      const prompts = promptsSeen(server);
      expect([...prompts.keys()]).toEqual(['1-1', '1-2']);
      expect(prompts.get('1-1')).not.toContain('## Previous Attempt Failed');
      expect(prompts.get('1-2')).toContain('## Previous Attempt Failed');
      expect(prompts.get('1-2')).toContain(reason);
      // The failed attempt's file is gone from the result but saved under its ref.
      const savedRef = `refs/ralphtool/${CHANGE}/attempts/1-1`;
      expect(repo.git('show', `${savedRef}:src/draft-parser.js`)).toBe('draft\n');
      expect(repo.git('ls-tree', '-r', '--name-only', 'HEAD')).not.toContain('src/draft-parser.js');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'fails an attempt OpenCode reports an API error for, and retries it',
    async () => {
      const repo = repoWith([{ title: 'One', tasks: ['First'] }]);
      const message = 'messages.0.content.0.text: text content blocks must be non-empty';
      const server = await serve({
        '1-1': [{ error: { status: 400, type: 'invalid_request_error', message } }],
        '1-2': [...tickWithEdit(repo, ['1.1']), complete('Done.')],
      });

      const result = await runRalph(repo, server, ['--max-retries', '1']);
      const events = result.events();

      expect(result.exitCode).toBe(0);
      const failed = ofType(events, 'attempt.failed');
      expect(failed).toEqual([
        expect.objectContaining({ storyId: '1', attempt: 1, kind: 'agent-error' }),
      ]);
      expect(failed[0]?.['reason']).toContain(`OpenCode reported an error (API 400): ${message}`);
      expect(ofType(events, 'agent.result')[0]).toMatchObject({ attempt: 1, isError: true });
      expect(events.at(-1)).toMatchObject({ type: 'run.finished', outcome: 'complete' });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'stops at once, without retrying, when the provider refuses the key',
    async () => {
      const repo = repoWith([{ title: 'One', tasks: ['First'] }]);
      const server = await serve({
        '1-1': [
          { error: { status: 401, type: 'authentication_error', message: 'invalid x-api-key' } },
        ],
      });

      const result = await runRalph(repo, server, ['--max-retries', '3']);
      const events = result.events();

      expect(result.exitCode).toBe(1);
      expect(server.mainTurns()).toBe(1);
      expect(ofType(events, 'story.started')).toHaveLength(1);
      const fatal = ofType(events, 'error').filter((e) => e['fatal'] === true);
      expect(fatal).toHaveLength(1);
      expect(fatal[0]?.['message']).toMatch(/opencode auth login/);
      expect(fatal[0]?.['message']).toMatch(/invalid x-api-key/);
      expect(ofType(events, 'run.awaiting-choice')).toEqual([]);
      expect(events.at(-1)).toMatchObject({
        type: 'run.finished',
        outcome: 'error',
        choice: null,
        storiesCompleted: 0,
      });
      expect(repo.git('status', '--porcelain')).toBe('');
    },
    TEST_TIMEOUT_MS,
  );
});
