// End to end: `ralphtool run --agent codex` drives the REAL Codex binary (@openai/codex, a dev
// dependency), whose model is a scripted Responses API server, through real `exec_command`
// tool calls in a real repository.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, type CliRun } from '../support/cli.js';
import { codexEnv } from '../support/responses-server-codex.js';
import type { ResponsesServer } from '../support/responses-server.js';
import type { TempRepo } from '../support/temp-repo.js';
import { undoAfterEach } from '../support/e2e-cleanups.js';
import { complete, promptsSeen, serveByAttempt, tick, type Plans } from './codex-conversations.js';

const CHANGE = 'add-greeter';
const TASKS = `openspec/changes/${CHANGE}/tasks.md`;
const { later, repoWith } = undoAfterEach(CHANGE);

type Event = { type: string; [key: string]: unknown };

async function serve(plans: Plans): Promise<ResponsesServer> {
  const server = await serveByAttempt(plans);
  later(() => server.close());
  return server;
}

/** `ralphtool run <change> --agent codex` with Codex talking to the scripted server. */
async function runRalph(
  repo: TempRepo,
  server: ResponsesServer,
  extra: string[] = [],
  options: { json?: boolean; streamRetries?: number } = {},
): Promise<CliRun> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ralphtool-e2e-codex-'));
  later(() => rmSync(dir, { recursive: true, force: true }));
  const json = options.json ?? true;
  const args = ['run', CHANGE, '--agent', 'codex', '--on-complete', 'keep', ...extra];
  const result = await runCli(json ? [...args, '--json'] : args, {
    cwd: repo.dir,
    env: codexEnv(dir, server.baseUrl, { streamRetries: options.streamRetries ?? 0 }),
    timeoutMs: 240_000,
  });
  // A throwing script is a broken test, not a product failure: say so plainly.
  expect(server.errors.map((e) => e.message)).toEqual([]);
  return result;
}

function ofType(events: Event[], type: string): Event[] {
  return events.filter((e) => e.type === type);
}

describe('ralphtool run with the real codex binary and a scripted Responses API', () => {
  it('runs a change to the end through real shell calls: one commit per story, tokens and no cost', async () => {
    const repo = repoWith([
      { title: 'Greeter module', tasks: ['Create the greeter', 'Export it'] },
      { title: 'Docs', tasks: ['Write the usage notes'] },
    ]);
    const server = await serve({
      '1-1': [
        { shell: "mkdir -p src && printf 'export const greet = (n) => n;\\n' > src/greeter.js" },
        tick(TASKS, '1.1', '1.2'),
        complete('The greeter exists.'),
      ],
      '2-1': [
        { shell: "mkdir -p docs && printf '# Usage\\n' > docs/usage.md" },
        tick(TASKS, '2.1'),
        complete('Documented.'),
      ],
    });

    const result = await runRalph(repo, server);
    const events = result.events();

    expect(result.exitCode).toBe(0);
    // Every scripted command really ran in Codex's shell and came back.
    expect(server.toolOutputs.map((o) => o.command)).toHaveLength(4);
    for (const output of server.toolOutputs)
      expect(output.output).toMatch(/exit code 0|Process exited with code 0/i);
    const tools = ofType(events, 'agent.tool');
    expect(tools.map((e) => e['name'])).toEqual(['shell', 'shell', 'shell', 'shell']);
    expect(tools[0]?.['summary']).toContain('src/greeter.js');
    // One Codex turn per attempt; its tokens are the sum over the turn's 3 model requests
    // (each 1000 in of which 400 cached, 50 out); Codex reports no cost.
    const results = ofType(events, 'agent.result');
    expect(results.map((e) => [e['storyId'], e['turns'], e['costUsd']])).toEqual([
      ['1', 1, null],
      ['2', 1, null],
    ]);
    for (const r of results) {
      expect(r['tokens']).toEqual({ input: 1800, output: 150, cacheRead: 1200, cacheWrite: 0 });
    }
    expect(ofType(events, 'attempt.failed')).toEqual([]);
    // Unknown, not zero: in the story's and the run's figures too.
    expect(ofType(events, 'story.completed').map((e) => e['costUsd'])).toEqual([null, null]);
    expect(events.at(-1)).toMatchObject({
      type: 'run.finished',
      outcome: 'complete',
      storiesCompleted: 2,
      costUsd: null,
    });
    expect(repo.git('log', '--format=%s').trim().split('\n')).toEqual([
      'checkpoint: 2',
      'checkpoint: 1',
      'initial state',
      'initial commit',
    ]);
    expect(repo.git('show', 'HEAD~1:src/greeter.js')).toBe('export const greet = (n) => n;\n');
    expect(repo.git('show', `HEAD~1:${TASKS}`).match(/- \[x\]/g)).toHaveLength(2);
    expect(repo.git('show', 'HEAD:docs/usage.md')).toBe('# Usage\n');
    expect(repo.git('show', `HEAD:${TASKS}`)).not.toContain('- [ ]');
    expect(repo.git('status', '--porcelain')).toBe('');

    // The prompt reached the model intact through stdin, and the raw stream was kept.
    const runDir = path.join(repo.dir, '.git', 'ralphtool', CHANGE);
    const prompt = readFileSync(path.join(runDir, 'prompts', '1-1.md'), 'utf8');
    expect(promptsSeen(server).get('1-1')).toContain(prompt.trim());
    const transcript = readFileSync(path.join(runDir, 'transcripts', '1-1.ndjson'), 'utf8');
    expect(transcript).toContain('"type":"turn.completed"');
  });

  it('shows tokens and "—" for the cost in the plain progress lines and the summary, never $0.00', async () => {
    const repo = repoWith([{ title: 'One', tasks: ['First'] }]);
    const server = await serve({ '1-1': [tick(TASKS, '1.1'), complete('Done.')] });

    const result = await runRalph(repo, server, [], { json: false });

    expect(result.exitCode).toBe(0);
    expect(result.stdout).not.toContain('$0');
    expect(result.stdout).toMatch(/= 1 Codex turn · 2000 in \/ 100 out tokens · —/);
    expect(result.stdout).toMatch(/✓ Story 1 done · 1 attempt · 2\.1k tokens · cost — · /);
    expect(result.stdout).toMatch(/^1 +One +1 +done +— /m);
    expect(result.stdout).toMatch(/all stories complete · 1\/1 stories · 2\.1k tokens · cost — · /);
  });

  it('reverts a FAILED attempt and tells the next one why, in the prompt Codex sends', async () => {
    const repo = repoWith([{ title: 'Parser', tasks: ['Parse the input'] }]);
    const reason = 'the parser needs a tokenizer that does not exist yet';
    const server = await serve({
      '1-1': [
        { shell: "printf 'draft\\n' > draft-parser.js" },
        { text: `I am stuck.\n<promise>FAILED: ${reason}</promise>` },
      ],
      '1-2': [{ shell: "printf 'ok\\n' > parser.js" }, tick(TASKS, '1.1'), complete('Parsed.')],
    });

    const result = await runRalph(repo, server);
    const events = result.events();

    expect(result.exitCode).toBe(0);
    expect(ofType(events, 'attempt.failed')).toEqual([
      expect.objectContaining({ storyId: '1', attempt: 1, kind: 'failed-signal', reason }),
    ]);
    const prompts = promptsSeen(server);
    expect([...prompts.keys()]).toEqual(['1-1', '1-2']);
    expect(prompts.get('1-1')).not.toContain('## Previous Attempt Failed');
    expect(prompts.get('1-2')).toContain('## Previous Attempt Failed');
    expect(prompts.get('1-2')).toContain(reason);
    const tree = repo.git('ls-tree', '-r', '--name-only', 'HEAD');
    expect(tree).toContain('parser.js');
    expect(tree).not.toContain('draft-parser.js');
    expect(repo.git('show', `refs/ralphtool/${CHANGE}/attempts/1-1:draft-parser.js`)).toBe(
      'draft\n',
    );
  });

  it('does not accept COMPLETE without the ticks, and an API error fails the attempt with Codex’s words', async () => {
    const repo = repoWith([{ title: 'Feature', tasks: ['Build it'] }]);
    const server = await serve({
      '1-1': [{ shell: "printf 'x\\n' > feature.txt" }, complete('All done, I promise.')],
      '1-2': [
        {
          status: 400,
          body: {
            error: { message: 'Invalid value for reasoning.', type: 'invalid_request_error' },
          },
        },
      ],
    });

    const result = await runRalph(repo, server, ['--max-retries', '1']);
    const events = result.events();

    expect(result.exitCode).not.toBe(0);
    const failed = ofType(events, 'attempt.failed');
    expect(failed.map((e) => [e['attempt'], e['kind']])).toEqual([
      [1, 'tasks-unchecked'],
      [2, 'agent-error'],
    ]);
    expect(failed[1]?.['reason']).toMatch(
      /^Codex reported an error: .*Invalid value for reasoning/,
    );
    expect(ofType(events, 'checkpoint.created')).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', storiesCompleted: 0 });
    expect(repo.git('ls-tree', '-r', '--name-only', 'HEAD')).not.toContain('feature.txt');
  });

  it('a 500 is a transient limit (Codex: high demand): with --on-limit stop the run ends limited', async () => {
    const repo = repoWith([{ title: 'One', tasks: ['First'] }]);
    const server = await serve({
      '1-1': [{ status: 500, body: { error: { message: 'boom', type: 'server_error' } } }],
    });

    const result = await runRalph(repo, server, ['--on-limit', 'stop']);
    const events = result.events();

    expect(result.exitCode).toBe(5);
    expect(ofType(events, 'attempt.failed')).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', outcome: 'limited' });
    const errors = ofType(events, 'error').map((e) => String(e['message']));
    expect(errors.some((m) => m.includes('We’re currently experiencing high demand'))).toBe(true);
  });

  it('stops the run at once on a 401, with the login hint, without retrying', async () => {
    const repo = repoWith([{ title: 'One', tasks: ['First'] }]);
    const server = await serve({
      '1-1': [
        {
          status: 401,
          body: {
            error: {
              message: 'Incorrect API key provided: sk-scrip*****.',
              type: 'invalid_request_error',
              code: 'invalid_api_key',
            },
          },
        },
      ],
    });

    const result = await runRalph(repo, server, ['--max-retries', '3']);
    const events = result.events();

    expect(result.exitCode).toBe(1);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.authorization).toBe('Bearer sk-scripted-responses-server');
    expect(ofType(events, 'story.started')).toHaveLength(1);
    const fatal = ofType(events, 'error').filter((e) => e['fatal'] === true);
    expect(fatal).toHaveLength(1);
    expect(fatal[0]?.['message']).toMatch(/codex login/);
    expect(fatal[0]?.['message']).toMatch(/Incorrect API key/);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', outcome: 'error', choice: null });
  });

  it('stops an attempt that only reconnects at --idle-timeout (the notices are no progress)', async () => {
    const repo = repoWith([{ title: 'One', tasks: ['First'] }]);
    // Every stream is cut after `response.created`: Codex reconnects with a growing backoff
    // (0.4, 0.6, 1, 2, 3.6, 7, 13 s…, recorded), printing `Reconnecting... n/50` each time.
    const server = await serve({ '1-1': Array.from({ length: 60 }, () => ({ drop: true })) });

    const started = Date.now();
    const result = await runRalph(repo, server, ['--idle-timeout', '11s', '--max-retries', '0'], {
      streamRetries: 50,
    });
    const events = result.events();

    expect(ofType(events, 'attempt.failed')).toEqual([
      expect.objectContaining({ attempt: 1, kind: 'idle-timeout' }),
    ]);
    const notices = ofType(events, 'agent.notice').map((e) => String(e['text']));
    expect(notices[0]).toMatch(/^Codex reconnecting 1\/50: stream disconnected before completion/);
    // Stopped 11 s after the last real line: after the 6th notice (8 s), before the 7th (15 s).
    // Were the notices progress, each would restart the 11 s: the attempt would run on until a
    // gap of 11 s between two of them (after the 7th).
    expect(notices.length).toBeGreaterThanOrEqual(4);
    expect(notices.length).toBeLessThanOrEqual(6);
    expect(Date.now() - started).toBeLessThan(120_000);
  });
});
