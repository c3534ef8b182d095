// End to end: `ralphtool run --agent gemini` drives the REAL Gemini CLI binary (0.61.0), whose API
// is the scripted server (GOOGLE_GEMINI_BASE_URL), through real write_file / replace /
// run_shell_command tool calls in a real repository.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, type CliRun } from '../support/cli.js';
import {
  contentsOf,
  startGeminiServer,
  textOf,
  type GeminiError,
  type GeminiServer,
  type GeminiTurn,
} from '../support/gemini-server.js';
import { geminiEnv } from '../support/gemini-server-cli.js';
import type { TempRepo } from '../support/temp-repo.js';
import { undoAfterEach } from '../support/e2e-cleanups.js';

const CHANGE = 'add-greeter';
const TASKS = `openspec/changes/${CHANGE}/tasks.md`;
// Each attempt starts a Gemini CLI (two Node processes): 10–60 s apiece on a busy machine.
const TEST_TIMEOUT_MS = 420_000;
const { later, repoWith } = undoAfterEach(CHANGE);

type Event = { type: string; [key: string]: unknown };
/** Answers per attempt, keyed `<story>-<attempt>`, one per model turn of that conversation. */
type Plans = Record<string, (GeminiTurn | GeminiError)[]>;

/**
 * Which attempt a request belongs to (ralphtool's prompt, in the first user content) and how far
 * its conversation has got (the model turns already in it).
 */
function conversationPoint(body: unknown): { key: string; step: number; prompt: string } | null {
  const contents = contentsOf(body);
  const prompt = textOf(contents.find((c) => c.role === 'user'));
  const story = /^# Working on Story (\S+): /m.exec(prompt)?.[1];
  const attempt = /attempt (\d+) of \d+/.exec(prompt)?.[1];
  if (story === undefined || attempt === undefined) return null;
  return {
    key: `${story}-${attempt}`,
    step: contents.filter((c) => c.role === 'model').length,
    prompt,
  };
}

async function serve(plans: Plans): Promise<GeminiServer> {
  const server = await startGeminiServer(({ body }) => {
    const point = conversationPoint(body);
    if (!point) throw new Error('a main request without a ralphtool prompt');
    const plan = plans[point.key];
    if (!plan) throw new Error(`no plan for attempt ${point.key}`);
    return plan[point.step];
  });
  later(() => server.close());
  return server;
}

/** The prompt each attempt's conversation opened with, keyed `<story>-<attempt>`. */
function promptsSeen(server: GeminiServer): Map<string, string> {
  const prompts = new Map<string, string>();
  for (const request of server.requests) {
    const point = request.kind === 'main' ? conversationPoint(request.body) : null;
    if (point && !prompts.has(point.key)) prompts.set(point.key, point.prompt);
  }
  return prompts;
}

/** `ralphtool run <change> --agent gemini --json` with gemini talking to the scripted server. */
async function runRalph(
  repo: TempRepo,
  server: GeminiServer,
  extra: string[] = [],
  options: { maxAttempts?: number; apiKey?: string } = {},
): Promise<CliRun> {
  const home = mkdtempSync(path.join(os.tmpdir(), 'ralphtool-gemini-home-'));
  later(() => rmSync(home, { recursive: true, force: true }));
  const args = ['run', CHANGE, '--agent', 'gemini', '--json', '--on-complete', 'keep', ...extra];
  const result = await runCli(args, {
    cwd: repo.dir,
    env: geminiEnv(server.url, home, options),
    timeoutMs: TEST_TIMEOUT_MS - 20_000,
  });
  // A throwing script is a broken test, not a product failure: say so plainly.
  expect(server.errors.map((e) => e.message)).toEqual([]);
  return result;
}

const ofType = (events: Event[], type: string): Event[] => events.filter((e) => e.type === type);

const tick = (repo: TempRepo, id: string): GeminiTurn => [
  {
    tool: 'replace',
    args: {
      file_path: path.join(repo.dir, TASKS),
      instruction: `Tick task ${id}`,
      old_string: `- [ ] ${id} `,
      new_string: `- [x] ${id} `,
    },
  },
];
const complete = (note: string): GeminiTurn => [
  { text: `${note}\n\n` },
  { text: '<promise>COMPLETE</promise>' },
];

describe('ralphtool run with the real gemini binary and a scripted Gemini API', () => {
  it(
    'completes a story through real tool calls and commits it, with tokens and no cost',
    async () => {
      const repo = repoWith([
        { title: 'Greeter module', tasks: ['Create the greeter', 'Test it'] },
      ]);
      const server = await serve({
        '1-1': [
          [
            { text: 'Creating the greeter.' },
            {
              tool: 'write_file',
              args: {
                file_path: path.join(repo.dir, 'src/greeter.js'),
                content: 'export const greet = (name) => `hello ${name}`;\n',
              },
            },
          ],
          tick(repo, '1.1'),
          [
            {
              tool: 'run_shell_command',
              args: {
                command: `sed -i 's/^- \\[ \\] 1\\.2 /- [x] 1.2 /' ${TASKS} && echo ticked`,
                description: 'Tick task 1.2',
              },
            },
          ],
          complete('The greeter exists.'),
        ],
      });

      const result = await runRalph(repo, server);
      const events = result.events();

      expect(result.stderr).toBe('');
      expect(result.exitCode).toBe(0);
      // Every scripted tool call really ran in Gemini CLI and succeeded.
      const responses = server.toolResponses();
      expect(responses.map((r) => r.name)).toEqual(['write_file', 'replace', 'run_shell_command']);
      expect(responses.filter((r) => 'error' in r.response)).toEqual([]);
      expect(ofType(events, 'agent.tool')).toEqual([
        expect.objectContaining({ name: 'write_file', summary: 'src/greeter.js' }),
        expect.objectContaining({ name: 'replace', summary: TASKS }),
        expect.objectContaining({ name: 'run_shell_command' }),
      ]);
      expect(ofType(events, 'agent.message').map((e) => e['text'])).toEqual([
        'Creating the greeter.',
        'The greeter exists.\n\n<promise>COMPLETE</promise>',
      ]);
      const results = ofType(events, 'agent.result');
      expect(results).toHaveLength(1);
      expect(results[0]).toMatchObject({ isError: false, turns: 4, costUsd: null });
      const tokens = results[0]?.['tokens'] as Record<string, number>;
      // Four main turns of 1,200 prompt tokens each, plus the router's side request.
      expect(tokens['input']).toBeGreaterThanOrEqual(4 * 1200);
      expect(tokens['output']).toBeGreaterThanOrEqual(4 * 80);
      expect(ofType(events, 'attempt.failed')).toEqual([]);
      expect(events.at(-1)).toMatchObject({
        type: 'run.finished',
        outcome: 'complete',
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
      // Gemini CLI keeps its chats under HOME, never in the repository.
      expect(existsSync(path.join(repo.dir, '.gemini'))).toBe(false);

      // The prompt reached the model whole through stdin, and the raw stream was kept.
      const runDir = path.join(repo.dir, '.git', 'ralphtool', CHANGE);
      const prompt = readFileSync(path.join(runDir, 'prompts', '1-1.md'), 'utf8');
      expect(promptsSeen(server).get('1-1')).toContain(prompt.trim());
      const transcript = readFileSync(path.join(runDir, 'transcripts', '1-1.ndjson'), 'utf8');
      expect(transcript).toContain('"type":"result"');
      expect(transcript).toContain('<promise>COMPLETE</promise>');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'reverts a FAILED attempt and tells the next attempt why',
    async () => {
      const repo = repoWith([{ title: 'Parser', tasks: ['Parse the input'] }]);
      const reason = 'the parser needs a tokenizer that does not exist yet';
      const server = await serve({
        '1-1': [
          [
            {
              tool: 'write_file',
              args: { file_path: path.join(repo.dir, 'src/draft.js'), content: 'draft\n' },
            },
          ],
          [{ text: `I am stuck.\n<promise>FAILED: ${reason}</promise>` }],
        ],
        '1-2': [
          [
            {
              tool: 'write_file',
              args: { file_path: path.join(repo.dir, 'src/parser.js'), content: 'parse\n' },
            },
          ],
          tick(repo, '1.1'),
          complete('Parsed.'),
        ],
      });

      const result = await runRalph(repo, server);
      const events = result.events();

      expect(result.exitCode).toBe(0);
      expect(ofType(events, 'attempt.failed')).toEqual([
        expect.objectContaining({ storyId: '1', attempt: 1, kind: 'failed-signal', reason }),
      ]);
      expect(events.at(-1)).toMatchObject({ type: 'run.finished', outcome: 'complete' });
      // The model itself was told: the second conversation opens with the reason.
      const prompts = promptsSeen(server);
      expect([...prompts.keys()]).toEqual(['1-1', '1-2']);
      expect(prompts.get('1-1')).not.toContain('## Previous Attempt Failed');
      expect(prompts.get('1-2')).toContain('## Previous Attempt Failed');
      expect(prompts.get('1-2')).toContain(reason);
      const tree = repo.git('ls-tree', '-r', '--name-only', 'HEAD');
      expect(tree).toContain('src/parser.js');
      expect(tree).not.toContain('src/draft.js');
      expect(repo.git('show', `refs/ralphtool/${CHANGE}/attempts/1-1:src/draft.js`)).toBe(
        'draft\n',
      );
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'stops at once, without retrying, when the API refuses the key',
    async () => {
      const repo = repoWith([{ title: 'One', tasks: ['First'] }]);
      // What the real Gemini API answers a bad key: 400 with reason API_KEY_INVALID.
      const badKey: GeminiError = {
        error: {
          code: 400,
          status: 'INVALID_ARGUMENT',
          message: 'API key not valid. Please pass a valid API key.',
          details: [
            {
              '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
              reason: 'API_KEY_INVALID',
              domain: 'googleapis.com',
            },
          ],
        },
      };
      const server = await serve({ '1-1': [badKey] });

      const result = await runRalph(repo, server, ['--max-retries', '3'], { apiKey: 'bad-key' });
      const events = result.events();

      expect(result.exitCode).toBe(1);
      expect(server.mainTurns()).toBe(1);
      expect(server.requests.find((r) => r.kind === 'main')?.headers['x-goog-api-key']).toBe(
        'bad-key',
      );
      expect(ofType(events, 'story.started')).toHaveLength(1);
      const fatal = ofType(events, 'error').filter((e) => e['fatal'] === true);
      expect(fatal).toHaveLength(1);
      expect(fatal[0]?.['message']).toMatch(/GEMINI_API_KEY/);
      expect(fatal[0]?.['message']).toMatch(/API key not valid/);
      expect(events.at(-1)).toMatchObject({
        type: 'run.finished',
        outcome: 'error',
        storiesCompleted: 0,
      });
      expect(repo.git('status', '--porcelain')).toBe('');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'reads an API error Gemini CLI gave up on as a server limit, not a failure of the story',
    async () => {
      const repo = repoWith([{ title: 'One', tasks: ['First'] }]);
      const server = await serve({
        '1-1': [
          { error: { code: 500, status: 'INTERNAL', message: 'Internal error encountered.' } },
        ],
      });

      const result = await runRalph(repo, server, ['--on-limit', 'stop'], { maxAttempts: 1 });
      const events = result.events();

      expect(result.exitCode).toBe(5);
      // maxAttempts 1: Gemini CLI's own retries are off, so one request and no more.
      expect(server.mainTurns()).toBe(1);
      // --on-limit stop: no wait, one warning naming the limit Gemini CLI reported.
      const warnings = ofType(events, 'error').map((e) => e['message']);
      expect(warnings).toEqual([
        expect.stringMatching(
          /^server limit \(gemini result\): Gemini CLI: \[API Error: .*Internal error encountered.*--on-limit stop ends the run here/,
        ),
      ]);
      expect(ofType(events, 'attempt.failed')).toEqual([]);
      expect(events.at(-1)).toMatchObject({ type: 'run.finished', outcome: 'limited' });
    },
    TEST_TIMEOUT_MS,
  );
});
