// The agent the job runs, made available by the job itself: the vendor CLI from npm, at the
// version this ralphtool is tested with (its devDependencies) unless the action's
// `agent-version` input says otherwise, installed into the runner's temp folder (no global
// install, none of ralphtool's own tooling). Skipped when the program is there already
// ($RALPHTOOL_<AGENT>_BIN, or on PATH). The install itself: action/npm-install.mjs.
import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { npmInstall } from './npm-install.mjs';

/** The npm package and program of each vendor agent ralphtool drives. */
export const AGENT_PACKAGES = {
  claude: { name: '@anthropic-ai/claude-code', bin: 'claude' },
  codex: { name: '@openai/codex', bin: 'codex' },
  gemini: { name: '@google/gemini-cli', bin: 'gemini' },
  opencode: { name: 'opencode-ai', bin: 'opencode' },
};

/**
 * The version of the agent's package ralphtool pins (its package.json, beside the action).
 * @param {string} actionRoot
 * @param {string} agent
 * @returns {string | null}
 */
export function pinnedVersion(actionRoot, agent) {
  const pkg = AGENT_PACKAGES[agent];
  if (!pkg) return null;
  const manifest = JSON.parse(readFileSync(path.join(actionRoot, 'package.json'), 'utf8'));
  return manifest.devDependencies?.[pkg.name] ?? null;
}

/**
 * Makes the agent's program available; returns the variables that point ralphtool at it
 * ({} when nothing had to be installed, or the agent is a command of the user's).
 * @param {{ agent: string, version: string, env: NodeJS.ProcessEnv, dir: string, log: (line: string) => void }} req
 * @returns {Record<string, string>}
 */
export function ensureAgent(req) {
  const pkg = AGENT_PACKAGES[req.agent];
  if (!pkg) return {};
  const variable = `RALPHTOOL_${req.agent.toUpperCase()}_BIN`;
  if ((req.env[variable] ?? '').trim() !== '') {
    req.log(`${req.agent}: ${variable} is set, using it`);
    return {};
  }
  const onPath = findOnPath(pkg.bin, req.env.PATH ?? '');
  if (onPath !== null) {
    req.log(`${req.agent}: using ${onPath}`);
    return {};
  }
  const prefix = path.join(req.dir, `${req.agent}-${req.version}`);
  const installed = npmInstall({ prefix, spec: `${pkg.name}@${req.version}`, env: req.env });
  if (!installed.ok) {
    throw new Error(
      `could not install ${pkg.name}@${req.version} for --agent ${req.agent}: ${installed.why}`,
    );
  }
  const program = path.join(prefix, 'node_modules', '.bin', pkg.bin);
  req.log(`${req.agent}: installed ${pkg.name}@${req.version} in ${String(installed.ms)} ms`);
  return { [variable]: program };
}

/**
 * The lookup of src/agents/preflight.ts's findProgram, again here: the action's scripts run with
 * node as they are, with none of ralphtool's sources built or importable.
 * @param {string} program
 * @param {string} searchPath
 * @returns {string | null}
 */
function findOnPath(program, searchPath) {
  for (const dir of searchPath.split(path.delimiter)) {
    if (dir === '') continue;
    const full = path.join(dir, program);
    try {
      if (!statSync(full).isFile()) continue;
      accessSync(full, constants.X_OK);
      return full;
    } catch {
      // not here
    }
  }
  return null;
}
