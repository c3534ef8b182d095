import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { execProgram } from '../../src/process/exec.js';
import {
  CLAUDE_ARGS,
  claudeBinPath,
  claudeEnv,
  startModelServer,
  type ModelServer,
  type Script,
} from '../support/model-server.js';

const GIT_ENV = { GIT_DIR: undefined, GIT_WORK_TREE: undefined, GIT_INDEX_FILE: undefined };
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function git(cwd: string, ...args: string[]): Promise<string> {
  return (
    await execProgram('git', args, { baseEnv: process.env, cwd, env: GIT_ENV })
  ).stdout.trim();
}

async function makeRepo(): Promise<string> {
  const repo = await tempDir('ralph-model-repo-');
  await git(repo, 'init', '-q', '-b', 'main');
  await git(repo, 'config', 'user.name', 'Test');
  await git(repo, 'config', 'user.email', 'test@example.com');
  await git(repo, 'config', 'commit.gpgsign', 'false');
  await writeFile(path.join(repo, 'README.md'), '# demo\n');
  await git(repo, 'add', '-A');
  await git(repo, 'commit', '-q', '-m', 'initial');
  return repo;
}

async function serve(script: Script): Promise<ModelServer> {
  const server = await startModelServer(script);
  cleanups.push(() => server.close());
  return server;
}

interface StreamLine {
  type?: string;
  [key: string]: unknown;
}

/** Runs the real binary exactly as ralphtool does and parses its stream-json output. */
async function runClaude(
  server: ModelServer,
  repo: string,
  options: { reject?: boolean } = {},
): Promise<StreamLine[]> {
  const home = await tempDir('ralph-model-home-');
  const started = Date.now();
  const result = await execProgram(claudeBinPath(), CLAUDE_ARGS, {
    baseEnv: process.env,
    cwd: repo,
    env: claudeEnv(server.url, home),
    input: 'Work on the story.\n',
    timeoutMs: 50_000,
    // An error result makes claude exit 1; such tests read the stream anyway.
    reject: options.reject ?? true,
  });
  // Measured for the report on how long a run takes; never asserted.
  console.info(`claude run: ${Date.now() - started} ms, ${server.requests.length} requests`);
  return result.stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as StreamLine);
}

function finalResult(lines: StreamLine[]): StreamLine {
  const results = lines.filter((line) => line.type === 'result');
  expect(results).toHaveLength(1);
  return results[0] as StreamLine;
}

describe('scripted model server with the real claude binary', () => {
  it('drives Write and Bash tool calls and ends with a result line', async () => {
    const repo = await makeRepo();
    const file = path.join(repo, 'hello.txt');
    const server = await serve([
      [
        { thinking: 'The story wants a greeting file.' },
        { text: 'I will create the file.' },
        { tool: 'Write', input: { file_path: file, content: 'hello from the scripted model\n' } },
      ],
      [{ tool: 'Bash', input: { command: 'cat hello.txt', description: 'Show the file' } }],
      [{ text: 'The file is there.\n<promise>COMPLETE</promise>' }],
    ]);

    const lines = await runClaude(server, repo);

    expect(await readFile(file, 'utf8')).toBe('hello from the scripted model\n');
    const bash = server.toolResults.find((result) => result.tool === 'Bash');
    expect(bash).toMatchObject({ isError: false, input: { command: 'cat hello.txt' } });
    expect(bash?.content).toContain('hello from the scripted model');
    expect(server.mainTurns()).toBe(3);

    const result = finalResult(lines);
    expect(result).toMatchObject({ subtype: 'success', is_error: false, num_turns: 3 });
    expect(result['result']).toContain('<promise>COMPLETE</promise>');
    expect(result['total_cost_usd']).toBeGreaterThan(0);
    expect(result['usage']).toMatchObject({
      input_tokens: expect.any(Number) as unknown,
      output_tokens: expect.any(Number) as unknown,
      cache_read_input_tokens: expect.any(Number) as unknown,
      cache_creation_input_tokens: expect.any(Number) as unknown,
    });
    const blocks = lines
      .filter((line) => line.type === 'assistant')
      .flatMap((line) => (line['message'] as { content: { type: string }[] }).content);
    expect(blocks.map((block) => block.type)).toEqual(
      expect.arrayContaining(['thinking', 'text', 'tool_use']),
    );
    expect(lines.some((line) => line.type === 'user')).toBe(true);
  });

  it('edits an existing file after reading it', async () => {
    const repo = await makeRepo();
    const file = path.join(repo, 'README.md');
    const server = await serve([
      // Claude Code's Edit refuses a file that was not read in this session.
      [{ tool: 'Read', input: { file_path: file } }],
      [{ tool: 'Edit', input: { file_path: file, old_string: '# demo', new_string: '# edited' } }],
      [{ text: '<promise>COMPLETE</promise>' }],
    ]);

    const lines = await runClaude(server, repo);

    expect(await readFile(file, 'utf8')).toBe('# edited\n');
    expect(server.toolResults.map((result) => [result.tool, result.isError])).toEqual([
      ['Read', false],
      ['Edit', false],
    ]);
    expect(finalResult(lines)).toMatchObject({ is_error: false });
  });

  it('lets the model commit with git through Bash', async () => {
    const repo = await makeRepo();
    const command = 'echo work > work.txt && git add work.txt && git commit -q -m "agent commit"';
    const server = await serve(({ turn }) =>
      turn === 0 ? [{ tool: 'Bash', input: { command, description: 'Commit' } }] : undefined,
    );

    const lines = await runClaude(server, repo);

    expect(await git(repo, 'log', '-1', '--format=%s')).toBe('agent commit');
    expect(await git(repo, 'status', '--porcelain')).toBe('');
    expect(server.toolResults[0]).toMatchObject({ tool: 'Bash', isError: false });
    expect(finalResult(lines)).toMatchObject({ is_error: false, result: 'Done.' });
  });

  it('reports a scripted authentication error as an error result without retrying', async () => {
    const repo = await makeRepo();
    const server = await serve([
      { error: { status: 401, type: 'authentication_error', message: 'invalid x-api-key' } },
    ]);

    const lines = await runClaude(server, repo, { reject: false });

    expect(finalResult(lines)).toMatchObject({ is_error: true, api_error_status: 401 });
    expect(server.mainTurns()).toBe(1);
  });
});
