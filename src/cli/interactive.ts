import type { renderApp } from '../ui/render-app.js';

/**
 * Loads the interactive UI for a person at a terminal. Ink draws only a final frame when it
 * thinks it runs in CI (any `CI`, `CONTINUOUS_INTEGRATION` or `CI_*` variable, which some dev
 * containers set), so those are cleared from ralphtool's own environment before Ink is
 * loaded. Agents get the environment as it was: callers pass a copy taken before.
 */
export async function loadInteractiveUi(): Promise<typeof renderApp> {
  for (const key of Object.keys(process.env)) {
    if (key === 'CI' || key === 'CONTINUOUS_INTEGRATION' || key.startsWith('CI_')) {
      delete process.env[key];
    }
  }
  return (await import('../ui/render-app.js')).renderApp;
}
