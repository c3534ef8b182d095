// The gemini backend with the REAL Gemini CLI (0.61.0) against the scripted Gemini API: what
// AttemptOutput says when the API rate-limits it, and when it has no credentials at all.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBackend, type AgentEvent, type AttemptOutput } from '../../src/agents/index.js';
import { GEMINI_AUTH_MESSAGE } from '../../src/agents/gemini-translator.js';
import { startGeminiServer, type GeminiServer } from '../support/gemini-server.js';
import { geminiEnv } from '../support/gemini-server-cli.js';

// Gemini CLI starts two Node processes: 10–60 s on a busy machine.
const TIMEOUT_MS = 240_000;
let dir: string;
const servers: GeminiServer[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ralphtool-gemini-real-'));
  mkdirSync(join(dir, 'repo'));
  mkdirSync(join(dir, 'home'));
});
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function attempt(
  env: Record<string, string | undefined>,
): Promise<{ output: AttemptOutput; events: AgentEvent[] }> {
  const backend = createBackend({ agent: 'gemini', baseDir: dir }, { ...process.env, ...env });
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

describe('gemini backend with the real Gemini CLI', () => {
  it(
    'reads a per-minute 429 as a rate limit with the reset the API gave',
    async () => {
      const server = await startGeminiServer(() => ({
        error: {
          code: 429,
          status: 'RESOURCE_EXHAUSTED',
          message: 'You exceeded your current quota. Please retry in 30s.',
        },
      }));
      servers.push(server);
      const before = Date.now();

      const { output } = await attempt(
        geminiEnv(server.url, join(dir, 'home'), { maxAttempts: 1 }),
      );

      expect(server.mainTurns()).toBe(1);
      expect(output.fatal).toBeNull();
      expect(output.limit).toMatchObject({ kind: 'rate', source: 'gemini result' });
      // "retry in 30s", counted from when the result was read: after the start, before now + 30 s.
      const resetsAt = Date.parse(output.limit?.resetsAt ?? '');
      expect(resetsAt).toBeGreaterThanOrEqual(before + 30_000);
      expect(resetsAt).toBeLessThanOrEqual(Date.now() + 30_000);
      expect(output.exitCode).toBe(429 % 256);
    },
    TIMEOUT_MS,
  );

  it(
    'stops at once, fatal, when Gemini CLI has no API key (exit 41, nothing on stdout)',
    async () => {
      const server = await startGeminiServer(() => undefined);
      servers.push(server);
      const env = geminiEnv(server.url, join(dir, 'home'));

      const { output, events } = await attempt({ ...env, GEMINI_API_KEY: undefined });

      expect(server.mainTurns()).toBe(0);
      expect(output.exitCode).toBe(41);
      expect(output.fatal).toContain(GEMINI_AUTH_MESSAGE);
      expect(output.fatal).toMatch(/must specify the GEMINI_API_KEY environment variable/);
      expect(events.filter((e) => e.type === 'result')).toEqual([]);
    },
    TIMEOUT_MS,
  );
});
