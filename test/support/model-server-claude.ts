// How to run the real Claude Code binary against the scripted model server.
import path from 'node:path';

/** The Claude Code binary installed as a dev dependency (a native executable). */
export function claudeBinPath(): string {
  return path.resolve('node_modules/.bin/claude');
}

/** The flags ralphtool passes (the prompt goes to stdin). */
export const CLAUDE_ARGS: readonly string[] = [
  '-p',
  '--output-format',
  'stream-json',
  '--verbose',
  '--dangerously-skip-permissions',
];

/**
 * Environment for one Claude Code run against `serverUrl`, with `home` a fresh empty
 * directory. Pass it as `exec`'s `env` (undefined removes an inherited variable).
 *
 * Nothing has to be written into `home`: in print mode (`-p`) Claude Code shows no
 * onboarding and no trust dialog, and it creates `~/.claude.json` and `~/.claude/` itself.
 */
export function claudeEnv(serverUrl: string, home: string): Record<string, string | undefined> {
  return {
    HOME: home,
    ANTHROPIC_BASE_URL: serverUrl,
    // Any value works: the scripted server does not check it. An API key (rather than a
    // login) is what makes Claude Code skip its OAuth/account checks.
    ANTHROPIC_API_KEY: 'sk-ant-scripted-model-server',
    // As root, --dangerously-skip-permissions is refused unless the process says it runs
    // in a sandbox.
    IS_SANDBOX: '1',
    // The one that matters for the network: without it every run resolves
    // api.anthropic.com (event logging, feature flags) although the API base URL points
    // elsewhere; offline those lookups fail fast here, but could stall on a resolver that
    // times out. With it the only connections go to ANTHROPIC_BASE_URL (checked with strace).
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    // Narrower switches covered by the line above (alone they still leave a lookup of
    // api.anthropic.com); kept so each concern is explicit.
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    // The server is on loopback: never route it through a proxy from the outer environment.
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
    // Settings from an outer Claude Code session or login would override the ones above.
    ANTHROPIC_AUTH_TOKEN: undefined,
    CLAUDE_CODE_OAUTH_TOKEN: undefined,
    CLAUDE_CONFIG_DIR: undefined,
    ANTHROPIC_MODEL: undefined,
    ANTHROPIC_SMALL_FAST_MODEL: undefined,
    CLAUDE_CODE_USE_BEDROCK: undefined,
    CLAUDE_CODE_USE_VERTEX: undefined,
    CLAUDECODE: undefined,
    CLAUDE_CODE_ENTRYPOINT: undefined,
    // The Bash tool runs git in the test repository: an outer git environment must not
    // redirect it elsewhere.
    GIT_DIR: undefined,
    GIT_WORK_TREE: undefined,
    GIT_INDEX_FILE: undefined,
  };
}
