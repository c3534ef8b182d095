// How to run the real Gemini CLI against the scripted Gemini server (test/support/gemini-server.ts).
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The Gemini CLI installed as a dev dependency (a Node script). */
export function geminiBinPath(): string {
  return path.resolve('node_modules/.bin/gemini');
}

/**
 * Prepares `home` (a fresh empty directory) for Gemini CLI and returns the environment of a
 * run against `serverUrl`: `gemini` is found on PATH in `home/bin` (nothing else of
 * node_modules/.bin), and `~/.gemini/settings.json` holds what an API-key user would have.
 * Pass it as `exec`'s `env` (undefined removes an inherited variable).
 *
 * `maxAttempts` is Gemini CLI's own retry count for 429 / 5xx / network errors (default 10,
 * 5 s to 30 s apart: minutes); tests of a failing API set 1.
 */
export function geminiEnv(
  serverUrl: string,
  home: string,
  options: { maxAttempts?: number; apiKey?: string } = {},
): Record<string, string | undefined> {
  const bin = path.join(home, 'bin');
  mkdirSync(bin, { recursive: true });
  symlinkSync(geminiBinPath(), path.join(bin, 'gemini'));
  mkdirSync(path.join(home, '.gemini'), { recursive: true });
  const settings = {
    // GOOGLE_GEMINI_BASE_URL alone would select the "gateway" auth type, which Gemini CLI
    // 0.61.0 refuses headless ("Invalid auth method selected."); the API-key type honours it.
    security: { auth: { selectedType: 'gemini-api-key' } },
    // No traffic but to the server (checked with strace: only 127.0.0.1 is connected to).
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    general: {
      enableAutoUpdate: false,
      enableAutoUpdateNotification: false,
      ...(options.maxAttempts !== undefined ? { maxAttempts: options.maxAttempts } : {}),
    },
    ide: { enabled: false },
  };
  writeFileSync(path.join(home, '.gemini', 'settings.json'), JSON.stringify(settings, null, 2));
  return {
    HOME: home,
    // Gemini CLI writes an error report to $TMPDIR after each API error: keep it in `home`.
    TMPDIR: home,
    PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`,
    GOOGLE_GEMINI_BASE_URL: serverUrl,
    GEMINI_API_KEY: options.apiKey ?? 'scripted-gemini-key',
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
    HTTP_PROXY: undefined,
    HTTPS_PROXY: undefined,
    http_proxy: undefined,
    https_proxy: undefined,
    // Another way in, or another configuration, from the outer environment.
    GEMINI_CLI_HOME: undefined,
    GEMINI_MODEL: undefined,
    GOOGLE_API_KEY: undefined,
    GOOGLE_GENAI_USE_VERTEXAI: undefined,
    GOOGLE_GENAI_USE_GCA: undefined,
    GOOGLE_CLOUD_PROJECT: undefined,
    GOOGLE_APPLICATION_CREDENTIALS: undefined,
    GOOGLE_VERTEX_BASE_URL: undefined,
    GEMINI_SANDBOX: undefined,
    GEMINI_CLI_TRUST_WORKSPACE: undefined,
    // Its shell tool runs git in the test repository: an outer git environment must not redirect it.
    GIT_DIR: undefined,
    GIT_WORK_TREE: undefined,
    GIT_INDEX_FILE: undefined,
  };
}
