// How to run the real OpenCode binary against the scripted model server. OpenCode bundles
// the AI SDK's Anthropic provider (`@ai-sdk/anthropic`), so a provider of the config with
// that `npm` package and a `baseURL` sends Anthropic Messages API requests (SSE) to the
// server, with nothing installed at run time.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The OpenCode binary installed as a dev dependency (a native executable). */
export function opencodeBinPath(): string {
  return path.resolve('node_modules/.bin/opencode');
}

/** The model ralphtool is given (`--model`): OpenCode's `provider/model`. */
export const OPENCODE_MODEL = 'scripted/model-1';

/**
 * Environment for OpenCode runs against `serverUrl`, with `home` a fresh empty directory:
 * its config, data, cache and state all live there (XDG_*), and the config names the
 * scripted provider. Pass it as `exec`'s `env` (undefined removes an inherited variable).
 */
export function opencodeEnv(serverUrl: string, home: string): Record<string, string | undefined> {
  const config = path.join(home, '.config');
  mkdirSync(path.join(config, 'opencode'), { recursive: true });
  writeFileSync(
    path.join(config, 'opencode', 'opencode.json'),
    JSON.stringify(
      {
        autoupdate: false,
        share: 'disabled',
        provider: {
          scripted: {
            npm: '@ai-sdk/anthropic',
            name: 'Scripted',
            options: { baseURL: `${serverUrl}/v1`, apiKey: 'sk-ant-scripted-model-server' },
            models: {
              // Prices per million tokens, so that OpenCode reports a cost.
              'model-1': {
                name: 'Model 1',
                cost: { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 },
              },
            },
          },
        },
      },
      null,
      2,
    ),
  );
  return {
    HOME: home,
    XDG_CONFIG_HOME: config,
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    XDG_STATE_HOME: path.join(home, '.local', 'state'),
    // No update check, no model list from models.dev, no default plugins, no LSP downloads,
    // no sharing: the only connections left are to the server (and OpenCode's look-up of
    // its plugin package on the npm registry, which fails harmlessly offline).
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
    OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
    OPENCODE_DISABLE_SHARE: '1',
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
    // Settings from an outer OpenCode would override the ones above.
    OPENCODE_CONFIG: undefined,
    OPENCODE_CONFIG_CONTENT: undefined,
    OPENCODE_CONFIG_DIR: undefined,
    OPENCODE_PERMISSION: undefined,
    ANTHROPIC_API_KEY: undefined,
    ANTHROPIC_BASE_URL: undefined,
    // The bash tool runs git in the test repository: an outer git environment must not
    // redirect it elsewhere.
    GIT_DIR: undefined,
    GIT_WORK_TREE: undefined,
    GIT_INDEX_FILE: undefined,
  };
}
