// End to end: `ralphtool run --agent claude` drives the REAL Claude Code binary, whose model
// is the scripted server, through real Write/Edit/Read/Bash tool calls in a real repository.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, type CliRun } from '../support/cli.js';
import {
  claudeBinPath,
  claudeEnv,
  startModelServer,
  type ModelServer,
  type ScriptedTurn,
} from '../support/model-server.js';
import type { TempRepo } from '../support/temp-repo.js';
import { undoAfterEach } from '../support/e2e-cleanups.js';
import { promptsSeen, scriptByAttempt, type AttemptPlans } from './conversations.js';

const CHANGE = 'add-greeter';
const TASKS = `openspec/changes/${CHANGE}/tasks.md`;
const { later, repoWith } = undoAfterEach(CHANGE);

type Event = { type: string; [key: string]: unknown };

async function serve(plans: AttemptPlans): Promise<ModelServer> {
  const server = await startModelServer(scriptByAttempt(plans));
  later(() => server.close());
  return server;
}

/** `ralphtool run <change> --agent claude --json` with claude talking to the scripted server. */
async function runRalph(
  repo: TempRepo,
  server: ModelServer,
  extra: string[] = [],
  command: 'run' | 'resume' = 'run',
): Promise<CliRun> {
  const home = mkdtempSync(path.join(os.tmpdir(), 'ralphtool-e2e-home-'));
  later(() => rmSync(home, { recursive: true, force: true }));
  const args = [command, CHANGE, '--agent', 'claude', '--json', '--on-complete', 'keep', ...extra];
  const result = await runCli(args, {
    cwd: repo.dir,
    env: { ...claudeEnv(server.url, home), RALPHTOOL_CLAUDE_BIN: claudeBinPath() },
    timeoutMs: 240_000,
  });
  // A throwing script is a broken test, not a product failure: say so plainly.
  expect(server.errors.map((e) => e.message)).toEqual([]);
  return result;
}

function ofType(events: Event[], type: string): Event[] {
  return events.filter((e) => e.type === type);
}

/** Read, then tick each task with Edit (Claude Code refuses an Edit of an unread file). */
function tickWithEdit(repo: TempRepo, ids: string[]): ScriptedTurn[] {
  const file = path.join(repo.dir, TASKS);
  return [
    [{ tool: 'Read', input: { file_path: file } }],
    ...ids.map((id) => [
      {
        tool: 'Edit',
        input: { file_path: file, old_string: `- [ ] ${id} `, new_string: `- [x] ${id} ` },
      },
    ]),
  ];
}

const complete = (note: string): ScriptedTurn => [
  { text: `${note}\n\n<promise>COMPLETE</promise>` },
];

describe('ralphtool run with the real claude binary and a scripted model', () => {
  it('runs a 3-story change to the end with real tool calls and keeps one commit per story', async () => {
    const repo = repoWith([
      { title: 'Greeter module', tasks: ['Create the greeter', 'Export it'] },
      { title: 'App uses it', tasks: ['Call the greeter from the app'] },
      { title: 'Docs', tasks: ['Write the usage notes', 'Link them from the README'] },
    ]);
    const at = (file: string): string => path.join(repo.dir, file);
    const server = await serve({
      '1-1': [
        [
          { thinking: 'A module with one function.' },
          { text: 'Creating the greeter.' },
          {
            tool: 'Write',
            input: {
              file_path: at('src/greeter.js'),
              content: 'export const greet = (name) => `hello ${name}`;\n',
            },
          },
        ],
        ...tickWithEdit(repo, ['1.1', '1.2']),
        complete('The greeter exists and is exported.'),
      ],
      '2-1': [
        [{ tool: 'Read', input: { file_path: at('src/app.txt') } }],
        [
          {
            tool: 'Edit',
            input: {
              file_path: at('src/app.txt'),
              old_string: 'app v1',
              new_string: 'app v2 uses greet()',
            },
          },
        ],
        [
          {
            tool: 'Bash',
            input: {
              command: `sed -i 's/^- \\[ \\] 2\\.1 /- [x] 2.1 /' ${TASKS}`,
              description: 'Tick task 2.1',
            },
          },
        ],
        complete('The app calls the greeter.'),
      ],
      '3-1': [
        [
          {
            tool: 'Bash',
            input: {
              command: 'mkdir -p docs && printf "# Usage\\n\\ngreet(name)\\n" > docs/usage.md',
              description: 'Write the usage notes',
            },
          },
        ],
        [{ tool: 'Read', input: { file_path: at('README.md') } }],
        [
          {
            tool: 'Edit',
            input: {
              file_path: at('README.md'),
              old_string: '# demo project',
              new_string: '# demo project\n\nSee [usage](docs/usage.md).',
            },
          },
        ],
        ...tickWithEdit(repo, ['3.1', '3.2']),
        complete('Documented.'),
      ],
    });

    const result = await runRalph(repo, server);
    const events = result.events();

    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    // Every scripted tool call really ran in Claude Code and succeeded.
    expect(server.toolResults.filter((r) => r.isError)).toEqual([]);
    expect(server.toolResults).toHaveLength(13);
    const tools = ofType(events, 'agent.tool');
    expect(new Set(tools.map((e) => e['name']))).toEqual(
      new Set(['Write', 'Read', 'Edit', 'Bash']),
    );
    expect(tools.find((e) => e['name'] === 'Write')).toMatchObject({
      storyId: '1',
      attempt: 1,
      summary: expect.stringContaining('src/greeter.js') as unknown,
    });
    const results = ofType(events, 'agent.result');
    expect(results.map((e) => e['storyId'])).toEqual(['1', '2', '3']);
    for (const r of results) {
      expect(r).toMatchObject({ isError: false });
      expect(r['turns']).toBeGreaterThan(1);
      expect(r['costUsd']).toBeGreaterThan(0);
      const tokens = r['tokens'] as Record<string, number>;
      expect(tokens['input']).toBeGreaterThan(0);
      expect(tokens['output']).toBeGreaterThan(0);
    }
    expect(ofType(events, 'attempt.failed')).toEqual([]);
    // Every line the real binary printed (init, assistant, user, result …) is a kind ralphtool knows.
    expect(ofType(events, 'agent.unrecognised')).toEqual([]);
    const checkpoints = ofType(events, 'checkpoint.created');
    expect(checkpoints.map((e) => e['storyId'])).toEqual(['1', '2', '3']);
    expect(events.at(-1)).toMatchObject({
      type: 'run.finished',
      outcome: 'complete',
      choice: 'keep',
      branch: `ralph/${CHANGE}`,
      storiesCompleted: 3,
      storiesTotal: 3,
    });
    expect((events.at(-1)?.['costUsd'] as number) > 0).toBe(true);

    // Keep: on ralph/<change>, one checkpoint commit per story, each holding its story's work.
    expect(repo.git('branch', '--show-current').trim()).toBe(`ralph/${CHANGE}`);
    expect(repo.git('log', '--format=%s').trim().split('\n')).toEqual([
      'checkpoint: 3',
      'checkpoint: 2',
      'checkpoint: 1',
      'initial state',
      'initial commit',
    ]);
    const sha = (id: string): string =>
      checkpoints.find((e) => e['storyId'] === id)?.['sha'] as string;
    expect(repo.git('rev-parse', 'HEAD').trim()).toBe(sha('3'));
    expect(repo.git('show', `${sha('1')}:src/greeter.js`)).toContain('hello ${name}');
    expect(repo.git('show', `${sha('1')}:src/app.txt`)).toBe('app v1\n');
    expect(repo.git('show', `${sha('2')}:src/app.txt`)).toBe('app v2 uses greet()\n');
    expect(repo.git('ls-tree', '-r', '--name-only', sha('2'))).not.toContain('docs/usage.md');
    expect(repo.git('show', `${sha('3')}:docs/usage.md`)).toBe('# Usage\n\ngreet(name)\n');
    expect(repo.git('show', `${sha('3')}:README.md`)).toContain('See [usage](docs/usage.md).');
    const tasks = repo.git('show', `${sha('3')}:${TASKS}`);
    expect(tasks).not.toContain('- [ ]');
    expect(tasks.match(/- \[x\]/g)).toHaveLength(5);
    // Each checkpoint ticked exactly its own story's tasks.
    expect(repo.git('show', `${sha('1')}:${TASKS}`).match(/- \[x\]/g)).toHaveLength(2);
    expect(repo.git('status', '--porcelain')).toBe('');
    expect(existsSync(path.join(repo.dir, '.claude'))).toBe(false);

    // The prompt reached the model intact through stdin, and the raw stream was kept.
    const runDir = path.join(repo.dir, '.git', 'ralphtool', CHANGE);
    const prompts = promptsSeen(server);
    for (const id of ['1', '2', '3']) {
      const prompt = readFileSync(path.join(runDir, 'prompts', `${id}-1.md`), 'utf8');
      expect(prompt).toMatch(new RegExp(`^# Working on Story ${id}: `));
      expect(prompts.get(`${id}-1`)).toContain(prompt.trim());
      const transcript = readFileSync(path.join(runDir, 'transcripts', `${id}-1.ndjson`), 'utf8');
      expect(transcript).toContain('"type":"result"');
      expect(transcript).toContain('<promise>COMPLETE</promise>');
    }
  });

  it('reverts a FAILED attempt, keeps its work under the attempt ref and tells the next attempt why', async () => {
    const repo = repoWith([{ title: 'Parser', tasks: ['Parse the input'] }]);
    const at = (file: string): string => path.join(repo.dir, file);
    const reason = 'the parser needs a tokenizer that does not exist yet';
    const server = await serve({
      '1-1': [
        [
          { tool: 'Write', input: { file_path: at('src/draft-parser.js'), content: 'draft\n' } },
          { tool: 'Write', input: { file_path: at('notes/plan.md'), content: '# plan\n' } },
        ],
        [{ text: `I am stuck.\n<promise>FAILED: ${reason}</promise>` }],
      ],
      '1-2': [
        [
          {
            tool: 'Write',
            input: { file_path: at('src/parser.js'), content: 'export const parse = (s) => s;\n' },
          },
        ],
        ...tickWithEdit(repo, ['1.1']),
        complete('Parsed.'),
      ],
    });

    const result = await runRalph(repo, server);
    const events = result.events();

    expect(result.exitCode).toBe(0);
    const failed = ofType(events, 'attempt.failed');
    expect(failed).toEqual([
      expect.objectContaining({ storyId: '1', attempt: 1, kind: 'failed-signal', reason }),
    ]);
    const savedRef = `refs/ralphtool/${CHANGE}/attempts/1-1`;
    const initialState = repo.git('rev-parse', `ralph/${CHANGE}~1`).trim();
    expect(ofType(events, 'checkpoint.reverted')).toEqual([
      expect.objectContaining({ storyId: '1', attempt: 1, toSha: initialState, savedRef }),
    ]);
    expect(ofType(events, 'story.started').map((e) => e['attempt'])).toEqual([1, 2]);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', outcome: 'complete' });

    // The model itself was told: the second conversation opens with the reason, the first did not.
    const prompts = promptsSeen(server);
    expect([...prompts.keys()]).toEqual(['1-1', '1-2']);
    expect(prompts.get('1-1')).not.toContain('## Previous Attempt Failed');
    expect(prompts.get('1-2')).toContain('## Previous Attempt Failed');
    expect(prompts.get('1-2')).toContain(reason);

    // The failed attempt's files are gone from the result but saved under its ref.
    const finalTree = repo.git('ls-tree', '-r', '--name-only', 'HEAD');
    expect(finalTree).toContain('src/parser.js');
    expect(finalTree).not.toContain('src/draft-parser.js');
    expect(finalTree).not.toContain('notes/plan.md');
    expect(existsSync(at('src/draft-parser.js'))).toBe(false);
    expect(existsSync(at('notes'))).toBe(false);
    expect(repo.git('show', `${savedRef}:src/draft-parser.js`)).toBe('draft\n');
    expect(repo.git('show', `${savedRef}:notes/plan.md`)).toBe('# plan\n');
    expect(repo.git('ls-tree', '-r', '--name-only', savedRef)).not.toContain('src/parser.js');
  });

  it('restores the checkpoint after the model committed on the branch itself and then failed', async () => {
    const repo = repoWith([{ title: 'Feature', tasks: ['Build it'] }]);
    const at = (file: string): string => path.join(repo.dir, file);
    const commit =
      'echo "agent work" > agent.txt && echo "changed" >> README.md && git add -A && git commit -q -m "agent commit"';
    const server = await serve({
      '1-1': [
        [{ tool: 'Bash', input: { command: commit, description: 'Commit my work' } }],
        [{ text: '<promise>FAILED: committed too early</promise>' }],
      ],
      '1-2': [
        [{ tool: 'Write', input: { file_path: at('feature.txt'), content: 'feature\n' } }],
        ...tickWithEdit(repo, ['1.1']),
        complete('Built.'),
      ],
    });

    const result = await runRalph(repo, server);
    const events = result.events();

    expect(result.exitCode).toBe(0);
    // The agent's commit really happened (the tool ran), so the revert had something to undo.
    const bash = server.toolResults.find((r) => r.tool === 'Bash');
    expect(bash).toMatchObject({ isError: false });
    const savedRef = `refs/ralphtool/${CHANGE}/attempts/1-1`;
    expect(repo.git('show', `${savedRef}:agent.txt`)).toBe('agent work\n');

    const branch = `ralph/${CHANGE}`;
    expect(repo.git('branch', '--show-current').trim()).toBe(branch);
    expect(repo.git('log', '--format=%s', branch).trim().split('\n')).toEqual([
      'checkpoint: 1',
      'initial state',
      'initial commit',
    ]);
    const reverted = ofType(events, 'checkpoint.reverted')[0];
    expect(reverted?.['toSha']).toBe(repo.git('rev-parse', `${branch}~1`).trim());
    expect(repo.git('ls-tree', '-r', '--name-only', 'HEAD')).not.toContain('agent.txt');
    expect(repo.git('show', 'HEAD:README.md')).toBe('# demo project\n');
    expect(readFileSync(at('README.md'), 'utf8')).toBe('# demo project\n');
    expect(repo.git('show', 'HEAD:feature.txt')).toBe('feature\n');
    expect(repo.git('status', '--porcelain')).toBe('');
  });

  it('stops at once, without retrying, when the API refuses the key, and resumes once it is accepted', async () => {
    const repo = repoWith([
      { title: 'One', tasks: ['First'] },
      { title: 'Two', tasks: ['Second'] },
    ]);
    const at = (file: string): string => path.join(repo.dir, file);
    const refused = await serve({
      '1-1': [
        { error: { status: 401, type: 'authentication_error', message: 'invalid x-api-key' } },
      ],
    });

    const result = await runRalph(repo, refused, ['--max-retries', '3']);
    const events = result.events();

    expect(result.exitCode).toBe(1);
    expect(refused.mainTurns()).toBe(1);
    expect(ofType(events, 'story.started')).toHaveLength(1);
    const fatal = ofType(events, 'error').filter((e) => e['fatal'] === true);
    expect(fatal).toHaveLength(1);
    expect(fatal[0]?.['message']).toMatch(/log in/);
    expect(fatal[0]?.['message']).toMatch(/ANTHROPIC_API_KEY/);
    // No completion choice: the run stays recorded at its checkpoint for resume or finish.
    expect(ofType(events, 'run.awaiting-choice')).toEqual([]);
    expect(events.at(-1)).toMatchObject({
      type: 'run.finished',
      outcome: 'error',
      choice: null,
      storiesCompleted: 0,
    });
    expect(repo.git('branch', '--show-current').trim()).toBe(`ralph/${CHANGE}`);
    expect(repo.git('status', '--porcelain')).toBe('');

    // "Logged in" now: resume carries on from the checkpoint and completes both stories.
    const story = (id: string): ScriptedTurn[] => [
      [{ tool: 'Write', input: { file_path: at(`story-${id}.txt`), content: `${id}\n` } }],
      ...tickWithEdit(repo, [`${id}.1`]),
      complete(`Story ${id} done.`),
    ];
    const accepted = await serve({ '1-1': story('1'), '1-2': story('1'), '2-1': story('2') });
    const resumed = await runRalph(repo, accepted, [], 'resume');

    expect(resumed.exitCode).toBe(0);
    expect(resumed.events().at(-1)).toMatchObject({
      type: 'run.finished',
      outcome: 'complete',
      storiesCompleted: 2,
    });
    expect(repo.git('log', '--format=%s').trim().split('\n')).toEqual([
      'checkpoint: 2',
      'checkpoint: 1',
      'initial state',
      'initial commit',
    ]);
  });
});
