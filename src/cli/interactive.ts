import type { renderApp } from '../ui/render-app.js';

/**
 * Loads the interactive UI for a person at a terminal. Ink draws only a final frame when it
 * thinks it runs in CI (any `CI`, `CONTINUOUS_INTEGRATION` or `CI_*` variable, which some dev
 * containers set), so those are cleared from `env` before Ink is loaded: pass the environment
 * Ink reads, the process's own (`CommandIO.processEnv`: io.env is a copy since ralphtool sets
 * NODE_ENV for itself, and clearing the copy left Ink drawing nothing under CI=true). Agents
 * get the environment as it was: callers pass them a copy taken before.
 */
export async function loadInteractiveUi(env: NodeJS.ProcessEnv): Promise<typeof renderApp> {
  for (const key of Object.keys(env)) {
    if (key === 'CI' || key === 'CONTINUOUS_INTEGRATION' || key.startsWith('CI_')) {
      delete env[key];
    }
  }
  return (await import('../ui/render-app.js')).renderApp;
}
