// The one npm install of the action's jobs (the agent's CLI, action/agent-install.mjs; the
// sandbox runtime, action/sandbox-install.mjs): a package at an exact version into a folder of
// its own, with nothing written back (no package.json, no lock file), no audit or funding calls,
// and the runner's npm cache first (a cached package installs with no network). No shell: npm
// gets an argument array.
import { spawnSync } from 'node:child_process';

/**
 * Installs `spec` (name@version) into `prefix`/node_modules.
 * @param {{ prefix: string, spec: string, env: NodeJS.ProcessEnv }} req
 * @returns {{ ok: true, ms: number } | { ok: false, why: string }}
 */
export function npmInstall(req) {
  const started = Date.now();
  const npm = spawnSync(
    'npm',
    [
      'install',
      '--prefix',
      req.prefix,
      '--no-save',
      '--no-package-lock',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      req.spec,
    ],
    { env: req.env, encoding: 'utf8' },
  );
  if (npm.error) return { ok: false, why: npm.error.message };
  if (npm.status !== 0) {
    const tail = (npm.stderr ?? '').trim().split('\n').slice(-3).join(' ');
    return { ok: false, why: tail === '' ? `npm exited with ${String(npm.status)}` : tail };
  }
  return { ok: true, ms: Date.now() - started };
}
