import { expectGone } from '../support/processes.js';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLAUDE_ARGS } from '../../src/agents/claude.js';
import { createBackend } from '../../src/agents/index.js';
import type { AgentEvent, AttemptRequest, BackendOptions } from '../../src/agents/index.js';
import { RuntimeError, UsageError } from '../../src/core/errors.js';

const FAKE_AGENT = fileURLToPath(new URL('../fixtures/agents/fake-agent.mjs', import.meta.url));
const PROMPT = '# Working on Story 1: Setup\n\nSay <promise>COMPLETE</promise> when done.\n';

let dir: string;
let repo: string;
let logDir: string;
let state: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ralphtool-agents-'));
  repo = join(dir, 'repo');
  logDir = join(dir, 'log');
  state = join(dir, 'state');
  mkdirSync(join(repo, 'openspec/changes/add-auth'), { recursive: true });
  writeFileSync(
    join(repo, 'openspec/changes/add-auth/tasks.md'),
    '## 1. Setup\n- [ ] 1.1 Add the dependency\n- [ ] 1.2 Configure\n\n## 2. Login\n- [ ] 2.1 Form\n',
  );
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Runs one attempt of story 1 with the fake agent playing the given steps. */
async function attempt(
  options: Omit<BackendOptions, 'baseDir'>,
  steps: object[],
  env: NodeJS.ProcessEnv = {},
  extra: Partial<AttemptRequest> = {},
) {
  const scenario = join(dir, 'scenario.json');
  writeFileSync(scenario, JSON.stringify({ '1-2': steps }));
  const backend = createBackend(
    { ...options, baseDir: dir },
    {
      ...process.env,
      FAKE_AGENT_SCENARIO: scenario,
      FAKE_AGENT_LOG_DIR: logDir,
      ...env,
    },
  );
  const events: AgentEvent[] = [];
  const output = await backend.runAttempt({
    prompt: PROMPT,
    cwd: repo,
    signal: new AbortController().signal,
    change: 'add-auth',
    storyId: '1',
    attempt: 2,
    wallTimeoutMs: 0,
    idleTimeoutMs: 0,
    transcriptPath: join(state, 'transcripts/1-2.ndjson'),
    promptFilePath: join(state, 'prompts/1-2.md'),
    onEvent: (event) => events.push(event),
    ...extra,
  });
  return { output, events, backend };
}

interface Invocation {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  promptFileContent: string | null;
}
const invocation = (): Invocation =>
  JSON.parse(readFileSync(join(logDir, 'invocation-1-2.json'), 'utf8')) as Invocation;

describe('command backend', () => {
  it('passes the prompt on stdin and in a file, the RALPHTOOL_ variables, and reads stdout', async () => {
    const { output, events } = await attempt(
      { agent: 'command', agentCommand: `'${FAKE_AGENT}' --flag "two words"` },
      [{ say: 'working on it' }, { tick: 'all' }, { signal: 'COMPLETE' }],
    );
    expect(output).toMatchObject({
      exitCode: 0,
      signal: null,
      timedOut: null,
      aborted: false,
      agentError: null,
      fatal: null,
    });
    expect(output.finalAnswer).toBe('working on it\n<promise>COMPLETE</promise>\n');
    expect(events).toEqual([
      { type: 'message', text: 'working on it' },
      { type: 'message', text: '<promise>COMPLETE</promise>' },
    ]);
    const seen = invocation();
    expect(seen.argv).toEqual(['--flag', 'two words']);
    expect(seen.cwd).toBe(repo);
    expect(seen.env).toMatchObject({
      RALPHTOOL_CHANGE: 'add-auth',
      RALPHTOOL_STORY_ID: '1',
      RALPHTOOL_ATTEMPT: '2',
      RALPHTOOL_PROMPT_FILE: join(state, 'prompts/1-2.md'),
    });
    expect(seen.promptFileContent).toBe(PROMPT);
    expect(readFileSync(join(logDir, 'prompt-1-2.md'), 'utf8')).toBe(PROMPT);
    expect(readFileSync(join(repo, 'openspec/changes/add-auth/tasks.md'), 'utf8')).toBe(
      '## 1. Setup\n- [x] 1.1 Add the dependency\n- [x] 1.2 Configure\n\n## 2. Login\n- [ ] 2.1 Form\n',
    );
    expect(readFileSync(join(state, 'transcripts/1-2.ndjson'), 'utf8')).toContain(
      '<promise>COMPLETE</promise>',
    );
  });

  it('gives the agent the repository as $PWD, not the directory ralphtool was started in', async () => {
    // A shell leaves PWD where ralphtool was started; an agent that takes its project from $PWD
    // (OpenCode does) would work there.
    const { output } = await attempt(
      { agent: 'command', agentCommand: `'${process.execPath}' -e "console.log(process.env.PWD)"` },
      [],
      { PWD: '/' },
    );
    expect(output.finalAnswer).toBe(`${repo}\n`);
  });

  it('keeps only the end of a flood of output as the answer', async () => {
    let messages = 0;
    const { output } = await attempt(
      { agent: 'command', agentCommand: FAKE_AGENT },
      [{ flood: 5 * 1024 * 1024, lineBytes: 1000 }, { signal: 'COMPLETE' }],
      {},
      { onEvent: () => (messages += 1) },
    );
    expect(messages).toBeGreaterThan(5000);
    expect(output.finalAnswer.length).toBeLessThanOrEqual(256 * 1024);
    expect(output.finalAnswer.endsWith('<promise>COMPLETE</promise>\n')).toBe(true);
  });

  it('reports a crash with its exit code and stderr', async () => {
    const { output } = await attempt({ agent: 'command', agentCommand: FAKE_AGENT }, [
      { stderr: 'segfault-ish' },
      { exit: 7 },
    ]);
    expect(output.exitCode).toBe(7);
    expect(output.stderrTail).toContain('segfault-ish');
  });

  it('kills the agent and its children at the idle limit', async () => {
    const { output } = await attempt(
      { agent: 'command', agentCommand: FAKE_AGENT },
      [{ say: 'thinking' }, { hang: true, withChild: true }],
      {},
      { idleTimeoutMs: 2000 },
    );
    expect(output.timedOut).toBe('idle');
    await expectGone(Number(readFileSync(join(logDir, 'child-1-2.pid'), 'utf8')));
  });

  it('stops the agent and its children when aborted', async () => {
    const controller = new AbortController();
    const pidFile = join(logDir, 'child-1-2.pid');
    const { output } = await attempt(
      { agent: 'command', agentCommand: FAKE_AGENT },
      [{ say: 'started' }, { hang: true, withChild: true }],
      {},
      {
        signal: controller.signal,
        onEvent: () => {
          // Stop once the grandchild exists, so that its death can be checked.
          const poll = setInterval(() => {
            if (!existsSync(pidFile)) return;
            clearInterval(poll);
            controller.abort();
          }, 50);
        },
      },
    );
    expect(output).toMatchObject({ aborted: true, timedOut: null, signal: 'SIGTERM' });
    await expectGone(Number(readFileSync(pidFile, 'utf8')));
  });

  it('raises an error thrown by the event listener after stopping the agent', async () => {
    const running = attempt(
      { agent: 'command', agentCommand: FAKE_AGENT },
      [{ say: 'one' }, { hang: true }],
      {},
      {
        onEvent: () => {
          throw new Error('listener broke');
        },
      },
    );
    await expect(running).rejects.toThrow('listener broke');
  });

  it('rejects a missing or malformed --agent-command as bad usage', () => {
    const make = (agentCommand?: string) => () =>
      createBackend({ agent: 'command', agentCommand, baseDir: dir }, process.env);
    expect(make()).toThrow(UsageError);
    expect(make('  ')).toThrow(UsageError);
    expect(make(`x 'open`)).toThrow(UsageError);
  });

  it('says which program was not found', async () => {
    const running = attempt({ agent: 'command', agentCommand: 'ralphtool-no-such-agent --x' }, []);
    await expect(running).rejects.toBeInstanceOf(RuntimeError);
    await expect(running).rejects.toThrow(/`ralphtool-no-such-agent` was not found/);
  });
});

describe('claude backend', () => {
  const claude = (env: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
    RALPHTOOL_CLAUDE_BIN: FAKE_AGENT,
    FAKE_AGENT_FORMAT: 'claude',
    ...env,
  });

  it('runs the program from RALPHTOOL_CLAUDE_BIN and reads its stream-json', async () => {
    const { output, events } = await attempt(
      { agent: 'claude', model: 'opus-test' },
      [
        { say: 'Starting.' },
        { write: 'src/auth.ts', content: 'export {};\n' },
        { echoPrompt: true },
        { signal: 'FAILED: the database is missing' },
      ],
      claude(),
    );
    expect(invocation().argv).toEqual([...CLAUDE_ARGS, '--model', 'opus-test']);
    expect(events).toEqual([
      { type: 'message', text: 'Starting.' },
      { type: 'tool', name: 'Write', summary: 'src/auth.ts' },
      { type: 'tool', name: 'Read', summary: join(state, 'prompts/1-2.md') },
      { type: 'message', text: '<promise>FAILED: the database is missing</promise>' },
      {
        type: 'result',
        turns: 4,
        tokens: { input: 1200, output: 250, cacheRead: 4500, cacheWrite: 300 },
        costUsd: 0.0125,
        durationMs: 1234,
        isError: false,
        text: '<promise>FAILED: the database is missing</promise>',
      },
    ]);
    // The echoed prompt (a tool result) held COMPLETE; the answer is the agent's own.
    expect(output.finalAnswer).toBe('<promise>FAILED: the database is missing</promise>');
    expect(output).toMatchObject({ exitCode: 0, agentError: null, fatal: null });
    expect(readFileSync(join(repo, 'src/auth.ts'), 'utf8')).toBe('export {};\n');
    const transcript = readFileSync(join(state, 'transcripts/1-2.ndjson'), 'utf8');
    expect(transcript).toContain('"type":"result"');
  });

  it('reports is_error as an agent error', async () => {
    const { output } = await attempt(
      { agent: 'claude' },
      [{ say: '<promise>COMPLETE</promise>' }, { isError: 'API Error: 500' }, { exit: 1 }],
      claude(),
    );
    expect(invocation().argv).toEqual([...CLAUDE_ARGS]);
    expect(output.agentError).toMatch(/API Error: 500/);
    expect(output.exitCode).toBe(1);
  });

  it('stops at the first authentication failure instead of waiting for retries', async () => {
    const retry = JSON.stringify({
      type: 'system',
      subtype: 'api_retry',
      attempt: 1,
      max_retries: 10,
      retry_delay_ms: 540,
      error_status: 401,
      error: 'authentication_failed',
    });
    const { output, events } = await attempt(
      { agent: 'claude' },
      [{ raw: retry }, { hang: true }],
      claude(),
    );
    expect(output.fatal).toMatch(/log in.*ANTHROPIC_API_KEY/);
    expect(output.aborted).toBe(false);
    expect(output.signal).toBe('SIGTERM');
    expect(events).toEqual([{ type: 'error', fatal: true, message: output.fatal }]);
  });

  it('stops an agent that only ever retries the API at the idle limit, showing each retry', async () => {
    const retry = (attempt: number): object => ({
      raw: JSON.stringify({
        type: 'system',
        subtype: 'api_retry',
        attempt,
        max_retries: 10,
        retry_delay_ms: 100,
        error_status: 529,
        error: 'overloaded',
        session_id: 'a3a5820e-f1e5-437a-a53f-928f34e243af',
        uuid: '8f476f64-7ab1-43aa-ab4c-54a4001a541f',
      }),
    });
    const steps = Array.from({ length: 200 }, (_, i) => [retry((i % 10) + 1), { sleep: 100 }]);
    const { output, events } = await attempt(
      { agent: 'claude' },
      [...steps.flat(), { say: '<promise>COMPLETE</promise>' }],
      claude(),
      { idleTimeoutMs: 2500 },
    );
    expect(output.timedOut).toBe('idle');
    expect(events[0]).toEqual({
      type: 'notice',
      text: 'API 529 (overloaded) — Claude Code retrying 1/10 in 0.1s',
    });
  });

  it('explains the refusal to run as root', async () => {
    const { output } = await attempt(
      { agent: 'claude' },
      [
        {
          stderr:
            '--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons',
        },
        { exit: 1 },
      ],
      claude(),
    );
    expect(output.fatal).toMatch(/IS_SANDBOX=1/);
  });

  it('says how to install Claude Code when it is missing', async () => {
    const empty = join(dir, 'empty-bin');
    mkdirSync(empty);
    const running = attempt({ agent: 'claude' }, [], { PATH: empty, RALPHTOOL_CLAUDE_BIN: '' });
    await expect(running).rejects.toBeInstanceOf(RuntimeError);
    await expect(running).rejects.toMatchObject({ exitCode: 1 });
    await expect(running).rejects.toThrow(/npm install -g @anthropic-ai\/claude-code/);

    const wrongBin = attempt({ agent: 'claude' }, [], {
      RALPHTOOL_CLAUDE_BIN: join(dir, 'no-claude'),
    });
    await expect(wrongBin).rejects.toThrow(/RALPHTOOL_CLAUDE_BIN.*npm install -g/);
  });
});

describe('codex backend', () => {
  const codexOnPath = (): NodeJS.ProcessEnv => {
    const bin = join(dir, 'bin');
    mkdirSync(bin, { recursive: true });
    symlinkSync(FAKE_AGENT, join(bin, 'codex'));
    return { PATH: `${bin}:${process.env.PATH ?? ''}`, FAKE_AGENT_FORMAT: 'codex' };
  };

  it('runs `codex exec --json … -` and takes the last agent_message as the answer', async () => {
    const { output, events } = await attempt(
      { agent: 'codex', model: 'gpt-test' },
      [{ echoPrompt: true }, { append: 'notes.md', content: 'x' }, { signal: 'COMPLETE' }],
      codexOnPath(),
    );
    expect(invocation().argv).toEqual([
      'exec',
      '--json',
      '--dangerously-bypass-approvals-and-sandbox',
      '-m',
      'gpt-test',
      '-',
    ]);
    expect(events.slice(0, 3)).toEqual([
      { type: 'tool', name: 'shell', summary: 'cat "$RALPHTOOL_PROMPT_FILE"' },
      { type: 'tool', name: 'patch', summary: 'update notes.md' },
      { type: 'message', text: '<promise>COMPLETE</promise>' },
    ]);
    expect(events[3]).toMatchObject({
      type: 'result',
      turns: 1,
      tokens: { input: 1000, output: 300, cacheRead: 200, cacheWrite: 0 },
      isError: false,
    });
    expect(output.finalAnswer).toBe('<promise>COMPLETE</promise>');
    expect(output.agentError).toBeNull();
  });

  it('reports turn.failed as an agent error', async () => {
    const { output } = await attempt(
      { agent: 'codex' },
      [{ isError: 'stream disconnected' }],
      codexOnPath(),
    );
    expect(output.agentError).toMatch(/stream disconnected/);
  });

  it('stops an agent that only ever reconnects at the idle limit: a notice is no progress', async () => {
    // As recorded from `codex exec --json` when the stream keeps dropping (openai/codex#32984).
    const reconnect = (n: number): object => ({
      raw: JSON.stringify({
        type: 'error',
        message: `Reconnecting... ${n}/5 (stream disconnected before completion: Connection reset by peer (os error 54))`,
      }),
    });
    // A notice every 100 ms for 20 s: far more often than the 2.5 s idle limit.
    const steps = Array.from({ length: 200 }, (_, i) => [reconnect((i % 5) + 1), { sleep: 100 }]);
    const { output, events } = await attempt(
      { agent: 'codex' },
      [...steps.flat(), { signal: 'COMPLETE' }],
      codexOnPath(),
      { idleTimeoutMs: 2500 },
    );
    expect(output.timedOut).toBe('idle');
    // The notices were still shown while they came.
    expect(events[0]).toEqual({
      type: 'notice',
      text: 'Codex reconnecting 1/5: stream disconnected before completion: Connection reset by peer (os error 54)',
    });
  });

  it('keeps an agent that makes progress between reconnects alive', async () => {
    const line = JSON.stringify({ type: 'error', message: 'Reconnecting... 1/5 (timeout)' });
    // Progress (an agent message) comes often enough; the notices in between change nothing.
    const steps = Array.from({ length: 8 }, () => [
      { raw: line },
      { sleep: 400 },
      { say: 'still working' },
    ]);
    const { output } = await attempt(
      { agent: 'codex' },
      [...steps.flat(), { signal: 'COMPLETE' }],
      codexOnPath(),
      { idleTimeoutMs: 10_000 },
    );
    expect(output.timedOut).toBeNull();
    expect(output.finalAnswer).toBe('<promise>COMPLETE</promise>');
  });

  it('says how to install Codex when it is missing', async () => {
    const running = attempt({ agent: 'codex' }, [], { PATH: join(dir, 'nothing-here') });
    await expect(running).rejects.toThrow(/npm install -g @openai\/codex/);
  });
});

describe('what the agent process and its children see', () => {
  it('no forge or CI credential reaches the agent, in any mode; its own key does', async () => {
    const dump = join(dir, 'agent-env.json');
    const script = join(dir, 'dump-env.mjs');
    writeFileSync(
      script,
      `import { writeFileSync } from 'node:fs';\nwriteFileSync(process.argv[2], JSON.stringify(process.env));\nconsole.log('<promise>COMPLETE</promise>');\n`,
    );
    await attempt({ agent: 'command', agentCommand: `node ${script} ${dump}` }, [], {
      ANTHROPIC_API_KEY: 'sk-ant-kept',
      GH_TOKEN: 'ghs_secret',
      GITHUB_TOKEN: 'ghs_secret2',
      ACTIONS_RUNTIME_TOKEN: 'runtime',
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'http.https://github.com/.extraheader',
      GIT_CONFIG_VALUE_0: 'AUTHORIZATION: basic c2VjcmV0',
    });
    const seen = JSON.parse(readFileSync(dump, 'utf8')) as Record<string, string>;
    expect(seen.ANTHROPIC_API_KEY).toBe('sk-ant-kept');
    expect(seen.RALPHTOOL_STORY_ID).toBe('1');
    for (const name of ['GH_TOKEN', 'GITHUB_TOKEN', 'ACTIONS_RUNTIME_TOKEN', 'GIT_CONFIG_COUNT']) {
      expect(seen[name], name).toBeUndefined();
    }
    expect(JSON.stringify(seen)).not.toContain('c2VjcmV0');
  });
});
