// The claude backend with the REAL Claude Code binary, whose API answers 429 / 529 / nothing:
// AttemptOutput.limit says what kind of limit, from which report, and when it resets.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBackend, type AgentEvent, type AttemptOutput } from '../../src/agents/index.js';
import {
  claudeBinPath,
  claudeEnv,
  startModelServer,
  type ModelServer,
  type Script,
} from '../support/model-server.js';
import { asSubscriber, overloaded529, usageLimit429 } from '../support/model-server-limits.js';

let dir: string;
const servers: ModelServer[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ralphtool-claude-limits-'));
  mkdirSync(join(dir, 'repo'));
  mkdirSync(join(dir, 'home'));
});
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function serve(script: Script): Promise<ModelServer> {
  const server = await startModelServer(script);
  servers.push(server);
  return server;
}

/** One attempt of the real claude against `url`, with `env` over the scripted-model defaults. */
async function attempt(
  url: string,
  env: (base: Record<string, string | undefined>) => Record<string, string | undefined> = (base) =>
    base,
): Promise<{ output: AttemptOutput; events: AgentEvent[] }> {
  const backend = createBackend(
    { agent: 'claude', baseDir: dir },
    env({ ...claudeEnv(url, join(dir, 'home')), RALPHTOOL_CLAUDE_BIN: claudeBinPath() }),
  );
  const events: AgentEvent[] = [];
  const output = await backend.runAttempt({
    prompt: '# Working on Story 1: Setup\n\nSay done.\n',
    cwd: join(dir, 'repo'),
    signal: new AbortController().signal,
    change: 'add-auth',
    storyId: '1',
    attempt: 1,
    wallTimeoutMs: 0,
    idleTimeoutMs: 0,
    transcriptPath: join(dir, 'state/transcripts/1-1.ndjson'),
    promptFilePath: join(dir, 'state/prompts/1-1.md'),
    onEvent: (event) => events.push(event),
  });
  return { output, events };
}

describe('the real claude binary at a limit', () => {
  it('a subscriber at its usage limit (429, unified status rejected): usage, reset from the headers', async () => {
    const resetAt = Math.floor(Date.now() / 1000) + 3600;
    const server = await serve(() => usageLimit429(resetAt));
    const { output } = await attempt(server.url, asSubscriber);
    expect(output.limit).toEqual({
      kind: 'usage',
      resetsAt: new Date(resetAt * 1000).toISOString(),
      source: 'claude rate_limit_event',
      message: `Claude Code hit its session limit; it resets at ${new Date(resetAt * 1000).toISOString()}`,
    });
    expect(output.fatal).toBeNull();
    // Claude Code does not retry a subscriber's 429: one main request.
    expect(server.mainTurns()).toBe(1);
  });

  it('an API key at a rate limit (429 without retry): rate, no reset time', async () => {
    const server = await serve(() => ({
      error: { status: 429, type: 'rate_limit_error', message: 'per-minute rate limit' },
      headers: { 'retry-after': '1' },
    }));
    const { output } = await attempt(server.url);
    expect(output.limit).toMatchObject({
      kind: 'rate',
      resetsAt: null,
      source: 'claude result (API 429)',
    });
  });

  it('an overloaded API (529, retried by Claude Code until it gives up): overloaded', async () => {
    const server = await serve(() => overloaded529());
    const { output, events } = await attempt(server.url, (base) => ({
      ...base,
      // Claude Code retries 529 ten times (about three minutes); one retry shows the same end.
      CLAUDE_CODE_MAX_RETRIES: '1',
    }));
    expect(output.limit).toMatchObject({
      kind: 'overloaded',
      resetsAt: null,
      source: 'claude result (API 529)',
    });
    // One retry notice, then Claude Code's last word as a notice (a limit is no agent error).
    expect(events.filter((e) => e.type === 'notice')).toHaveLength(2);
    expect(events.filter((e) => e.type === 'error')).toEqual([]);
    expect(server.mainTurns()).toBe(2);
  });

  it('nothing listening: connection', async () => {
    const server = await serve([]);
    const url = server.url;
    await server.close();
    servers.splice(servers.indexOf(server), 1);
    const { output } = await attempt(url, (base) => ({ ...base, CLAUDE_CODE_MAX_RETRIES: '1' }));
    expect(output.limit).toMatchObject({
      kind: 'connection',
      resetsAt: null,
      source: 'claude result (no connection)',
    });
  });

  it('a refused login (401) stays fatal, not a limit', async () => {
    const server = await serve(() => ({
      error: { status: 401, type: 'authentication_error', message: 'invalid x-api-key' },
    }));
    const { output } = await attempt(server.url);
    expect(output.fatal).toMatch(/not logged in/);
    expect(output.limit).toBeNull();
  });
});
