/**
 * What the agent's environment never holds, in every mode (a terminal, CI, a worker): the
 * credentials of the forge and of the CI runner. An agent runs with its permission checks off;
 * with a token that can push, open pull requests or mint cloud credentials it could change
 * more than the work tree ralphtool puts back. ralphtool needs none of them in the agent: its
 * own pushes get their credential from its own environment (the Action gives it there).
 */
const FORGE_CREDENTIALS: readonly string[] = [
  // GitHub, its CLI and GitHub Actions' runtime (artifact, cache and OIDC token endpoints).
  'GH_TOKEN',
  'GITHUB_TOKEN',
  'GH_ENTERPRISE_TOKEN',
  'GITHUB_ENTERPRISE_TOKEN',
  'ACTIONS_RUNTIME_TOKEN',
  'ACTIONS_RUNTIME_URL',
  'ACTIONS_ID_TOKEN_REQUEST_TOKEN',
  'ACTIONS_ID_TOKEN_REQUEST_URL',
  'ACTIONS_CACHE_URL',
  'ACTIONS_RESULTS_URL',
  // GitLab CI, Gitea/Forgejo, Bitbucket Pipelines, Azure Pipelines.
  'CI_JOB_TOKEN',
  'CI_JOB_JWT',
  'CI_JOB_JWT_V2',
  'GITLAB_TOKEN',
  'GL_TOKEN',
  'GITEA_TOKEN',
  'FORGEJO_TOKEN',
  'BITBUCKET_STEP_OIDC_TOKEN',
  'SYSTEM_ACCESSTOKEN',
];

/** `GIT_CONFIG_KEY_<n>` entries that carry a credential (an HTTP header, a credential helper). */
const CREDENTIAL_CONFIG = /^(http\..*extraheader|credential\..*)$/i;

/**
 * The environment an agent gets from the one ralphtool was given: the forge and CI credentials
 * removed, and git configuration passed through the environment (`GIT_CONFIG_COUNT`) without
 * its credential entries (renumbered). Returns the names of what was removed too (for the
 * documentation's promise, and tests). Pure.
 */
export function agentEnvironment(env: NodeJS.ProcessEnv): {
  env: NodeJS.ProcessEnv;
  removed: string[];
} {
  const out: NodeJS.ProcessEnv = { ...env };
  const removed: string[] = [];
  for (const name of Object.keys(out)) {
    if (FORGE_CREDENTIALS.includes(name.toUpperCase())) {
      delete out[name];
      removed.push(name);
    }
  }
  const count = Number(env.GIT_CONFIG_COUNT ?? '0');
  if (Number.isInteger(count) && count > 0) {
    const kept: [string, string][] = [];
    for (let i = 0; i < count; i += 1) {
      const key = env[`GIT_CONFIG_KEY_${String(i)}`] ?? '';
      const value = env[`GIT_CONFIG_VALUE_${String(i)}`] ?? '';
      delete out[`GIT_CONFIG_KEY_${String(i)}`];
      delete out[`GIT_CONFIG_VALUE_${String(i)}`];
      if (CREDENTIAL_CONFIG.test(key)) removed.push(`GIT_CONFIG_KEY_${String(i)}=${key}`);
      else kept.push([key, value]);
    }
    kept.forEach(([key, value], i) => {
      out[`GIT_CONFIG_KEY_${String(i)}`] = key;
      out[`GIT_CONFIG_VALUE_${String(i)}`] = value;
    });
    if (kept.length > 0) out.GIT_CONFIG_COUNT = String(kept.length);
    else delete out.GIT_CONFIG_COUNT;
  }
  return { env: out, removed };
}
