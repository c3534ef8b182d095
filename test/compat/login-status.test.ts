import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agentLogin } from '../../src/agents/login-status.js';
import { claudeBinPath } from '../support/model-server-claude.js';
import { codexBinPath } from '../support/responses-server-codex.js';

// The vendor CLIs' own status commands, as ralphtool reads them before a run: an empty home
// (nobody logged in), a key in the environment, and Codex with a provider of its own.

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** An environment with nothing of this machine's logins or keys. */
function bareEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  dir = mkdtempSync(path.join(os.tmpdir(), 'ralphtool-login-'));
  const home = path.join(dir, 'home');
  mkdirSync(home);
  return {
    PATH: process.env.PATH,
    HOME: home,
    CODEX_HOME: path.join(dir, 'codex'),
    CLAUDE_CONFIG_DIR: path.join(dir, 'claude'),
    RALPHTOOL_CLAUDE_BIN: claudeBinPath(),
    RALPHTOOL_CODEX_BIN: codexBinPath(),
    ...extra,
  };
}

describe('claude auth status', () => {
  it('nobody logged in: logged out, with the way to log in', async () => {
    const env = bareEnv();
    const login = await agentLogin('claude', env, dir);
    expect(login).toMatchObject({ kind: 'logged-out' });
    expect(login.kind === 'logged-out' && login.fix).toContain('claude auth login');
  });

  it('an API key in the environment: logged in', async () => {
    const env = bareEnv({ ANTHROPIC_API_KEY: 'sk-ant-not-a-real-key' });
    expect(await agentLogin('claude', env, dir)).toEqual({ kind: 'logged-in', how: 'api_key' });
  });
});

describe('codex login status', () => {
  it('nobody logged in: logged out', async () => {
    const env = bareEnv();
    mkdirSync(env.CODEX_HOME ?? '', { recursive: true });
    expect(await agentLogin('codex', env, dir)).toMatchObject({ kind: 'logged-out' });
  });

  it('a provider of its own in config.toml: not what the status speaks for, so unknown', async () => {
    const env = bareEnv();
    mkdirSync(env.CODEX_HOME ?? '', { recursive: true });
    writeFileSync(
      path.join(env.CODEX_HOME ?? '', 'config.toml'),
      'model_provider = "local"\n[model_providers.local]\nname = "local"\nbase_url = "http://127.0.0.1:1"\n',
    );
    expect(await agentLogin('codex', env, dir)).toEqual({ kind: 'unknown' });
  });

  it('logged in with an API key: logged in', async () => {
    const env = bareEnv();
    mkdirSync(env.CODEX_HOME ?? '', { recursive: true });
    const { execFileSync } = await import('node:child_process');
    execFileSync(codexBinPath(), ['login', '--with-api-key'], {
      env,
      input: 'sk-not-a-real-key\n',
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    expect(await agentLogin('codex', env, dir)).toMatchObject({ kind: 'logged-in' });
  });
});
