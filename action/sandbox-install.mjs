// What `--sandbox` needs on the runner, made available by the job (the action's `sandbox` input,
// on by default; docs/sandbox.md): bubblewrap, socat and ripgrep from the distribution (apt-get,
// through sudo when the job is not root), and @anthropic-ai/sandbox-runtime, the one library the
// bundle leaves out (it runs vendored binaries beside its own files), at the version ralphtool
// pins, installed beside the bundle where Node finds it. On Ubuntu 24.04 runners AppArmor refuses
// unprivileged user namespaces: the job allows them (a runner is the job's own machine). Anything
// that still does not work, ralphtool itself refuses with one line (fail-closed). No shell.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { npmInstall } from './npm-install.mjs';
import process from 'node:process';

export const SANDBOX_LIBRARY = '@anthropic-ai/sandbox-runtime';
const PROGRAMS = [
  ['bwrap', 'bubblewrap'],
  ['socat', 'socat'],
  ['rg', 'ripgrep'],
];
const APPARMOR_USERNS = '/proc/sys/kernel/apparmor_restrict_unprivileged_userns';

/**
 * @param {{ actionRoot: string, cli: string, env: NodeJS.ProcessEnv, log: (line: string) => void }} req
 */
export function ensureSandbox(req) {
  const missing = PROGRAMS.filter(([program]) => !onPath(program, req.env)).map(([, pkg]) => pkg);
  if (missing.length > 0) {
    req.log(`sandbox: installing ${missing.join(' ')}`);
    asRoot(['apt-get', 'update', '-qq'], req);
    asRoot(['apt-get', 'install', '-y', '-qq', ...missing], req);
  }
  if (existsSync(APPARMOR_USERNS) && readFileSync(APPARMOR_USERNS, 'utf8').trim() === '1') {
    req.log(
      'sandbox: allowing unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns=0)',
    );
    asRoot(['sysctl', '-q', '-w', 'kernel.apparmor_restrict_unprivileged_userns=0'], req);
  }
  if (libraryFound(path.dirname(req.cli))) return;
  const manifest = JSON.parse(readFileSync(path.join(req.actionRoot, 'package.json'), 'utf8'));
  const version = manifest.dependencies?.[SANDBOX_LIBRARY];
  const prefix = path.dirname(req.cli);
  req.log(`sandbox: installing ${SANDBOX_LIBRARY}@${version} beside ${path.basename(req.cli)}`);
  const installed = npmInstall({ prefix, spec: `${SANDBOX_LIBRARY}@${version}`, env: req.env });
  if (!installed.ok) req.log(`sandbox: could not install ${SANDBOX_LIBRARY}: ${installed.why}`);
}

/** Where Node would find the library from the bundle's folder (a node_modules of it or above). */
function libraryFound(dir) {
  for (let at = dir; ; at = path.dirname(at)) {
    if (existsSync(path.join(at, 'node_modules', SANDBOX_LIBRARY, 'package.json'))) return true;
    if (path.dirname(at) === at) return false;
  }
}

function asRoot(argv, req) {
  const root = process.getuid?.() === 0;
  const [program, ...args] = root ? argv : ['sudo', '-n', ...argv];
  const result = spawnSync(program, args, { env: req.env, encoding: 'utf8' });
  if (result.error || result.status !== 0) {
    req.log(
      `sandbox: ${argv.join(' ')} failed: ${(result.stderr ?? result.error?.message ?? '').trim()}`,
    );
  }
}

function onPath(program, env) {
  return (env.PATH ?? '')
    .split(path.delimiter)
    .some((dir) => dir !== '' && existsSync(path.join(dir, program)));
}
