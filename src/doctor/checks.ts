import { installHint } from '../agents/programs.js';
import type { RunStatus } from '../run/status/status.js';
import type { DoctorFacts, OpenSpecFacts, ProgramFacts, RepoFacts } from './facts.js';

/** ok ✓, warn ! (worth knowing, `run` still works), fail ✗ (`run` with claude cannot work). */
export type CheckStatus = 'ok' | 'warn' | 'fail';

export interface CheckResult {
  status: CheckStatus;
  label: string;
  detail: string;
  /** What to do about it; set when the status is not ok. */
  fix: string | null;
}

/**
 * The oldest git the engine works with: `rev-parse --end-of-options` (2.30) is the
 * newest feature it uses (`add --pathspec-from-file` is 2.25, `merge --quit` 2.22).
 */
export const MIN_GIT: readonly [number, number] = [2, 30];

const ok = (label: string, detail: string): CheckResult => ({
  status: 'ok',
  label,
  detail,
  fix: null,
});
const warn = (label: string, detail: string, fix: string): CheckResult => ({
  status: 'warn',
  label,
  detail,
  fix,
});
const fail = (label: string, detail: string, fix: string): CheckResult => ({
  status: 'fail',
  label,
  detail,
  fix,
});

/** Every check of `ralphtool doctor`, in the order they are shown. Pure. */
export function doctorChecks(facts: DoctorFacts, cwd: string): CheckResult[] {
  const results: CheckResult[] = [gitCheck(facts.git)];
  if (facts.git !== null) {
    results.push(identityCheck(facts.identity));
    results.push(facts.repo ? ok('repository', facts.repo.root) : notInRepo(cwd));
    if (facts.repo) results.push(...repoStateChecks(facts.repo));
  }
  results.push(...openSpecChecks(facts.openspec, cwd));
  results.push(
    claudeCheck(facts.claude),
    ...loginCheck('claude', facts.claude),
    optionalAgentCheck('codex', facts.codex),
    ...loginCheck('codex', facts.codex),
    openCodeCheck(facts.opencode),
    optionalAgentCheck('gemini', facts.gemini),
    userCheck(facts),
    sandboxCheck(facts.sandboxProblem),
  );
  return results;
}

/** `run --sandbox` (docs/sandbox.md): only needed with it, so a warning when it cannot work. */
function sandboxCheck(problem: DoctorFacts['sandboxProblem']): CheckResult {
  if (problem === null) return ok('--sandbox', 'works here (a sandboxed `true` ran)');
  return warn(
    '--sandbox',
    `cannot work here: ${problem.reason} (only needed for --sandbox)`,
    problem.remedy,
  );
}

/** 0 when nothing stops `ralphtool run` with the default agent, else 1. */
export function doctorExitCode(results: readonly CheckResult[]): number {
  return results.some((r) => r.status === 'fail') ? 1 : 0;
}

export function parseGitVersion(version: string): [number, number] | null {
  const match = /^(\d+)\.(\d+)/.exec(version);
  return match ? [Number(match[1]), Number(match[2])] : null;
}

function gitCheck(git: DoctorFacts['git']): CheckResult {
  const minimum = `${MIN_GIT[0]}.${MIN_GIT[1]}`;
  if (git === null) {
    return fail(
      'git',
      'not found on PATH',
      'install git (https://git-scm.com), version ' + minimum + ' or newer',
    );
  }
  const parsed = git.version ? parseGitVersion(git.version) : null;
  if (parsed === null) {
    return warn(
      'git',
      `cannot read the version from "${git.raw}"`,
      `ralphtool needs git ${minimum} or newer`,
    );
  }
  const [major, minor] = parsed;
  if (major < MIN_GIT[0] || (major === MIN_GIT[0] && minor < MIN_GIT[1])) {
    return fail(
      'git',
      `${git.version ?? ''} is too old (ralphtool needs ${minimum} or newer)`,
      'upgrade git (https://git-scm.com)',
    );
  }
  return ok('git', `version ${git.version ?? ''}`);
}

function identityCheck(identity: DoctorFacts['identity']): CheckResult {
  const missing = [identity.name ? null : 'user.name', identity.email ? null : 'user.email'].filter(
    (k): k is string => k !== null,
  );
  if (missing.length === 0)
    return ok('git identity', `${identity.name ?? ''} <${identity.email ?? ''}>`);
  return warn(
    'git identity',
    `${missing.join(' and ')} not set: checkpoints are committed as ralphtool <ralphtool@localhost>`,
    missing
      .map(
        (key) =>
          `git config --global ${key} "${key === 'user.name' ? 'Your Name' : 'you@example.com'}"`,
      )
      .join(' && '),
  );
}

function notInRepo(cwd: string): CheckResult {
  return fail(
    'repository',
    `${cwd} is not inside a git work tree`,
    'run ralphtool in your project (or pass -C <dir>), or create a repository with `git init`',
  );
}

function repoStateChecks(repo: RepoFacts): CheckResult[] {
  return [branchCheck(repo), operationCheck(repo), treeCheck(repo), runsCheck(repo.runs)];
}

function branchCheck(repo: RepoFacts): CheckResult {
  const head = repo.head;
  if (head.kind === 'detached') return ok('branch', `detached HEAD at ${head.sha.slice(0, 12)}`);
  if (head.kind === 'unborn') return ok('branch', `${head.name} (no commit yet)`);
  if (!head.name.startsWith('ralph/')) return ok('branch', head.name);
  // `run` refuses to start on a run's branch: not ready until the user is back on their own.
  const change = head.name.slice('ralph/'.length);
  const run = repo.runs.find((r) => r.change === change);
  if (run && run.state !== 'finished') {
    return fail(
      'branch',
      `${head.name}: the branch of a ralphtool run (${run.state}); a new run cannot start here`,
      run.next,
    );
  }
  return fail(
    'branch',
    `${head.name}: a ralphtool run branch with no active run; a new run cannot start here`,
    'switch back to your own branch (`git switch <branch>`) before starting a run',
  );
}

const OPERATION_FIX: Record<string, string> = {
  merge: 'finish it (`git commit`) or abort it (`git merge --abort`)',
  rebase: 'finish it (`git rebase --continue`) or abort it (`git rebase --abort`)',
  am: 'finish it (`git am --continue`) or abort it (`git am --abort`)',
  'cherry-pick': 'finish it (`git cherry-pick --continue`) or abort it (`git cherry-pick --abort`)',
  revert: 'finish it (`git revert --continue`) or abort it (`git revert --abort`)',
  bisect: 'end it with `git bisect reset`',
};

function operationCheck(repo: RepoFacts): CheckResult {
  const [first] = repo.operations;
  if (first === undefined)
    return ok('git operation', 'no merge, rebase, cherry-pick or bisect in progress');
  const what = repo.operations.map((op) => `a ${op}`).join(' and ');
  return fail(
    'git operation',
    `${what} in progress: ralphtool will not start a run`,
    OPERATION_FIX[first] ?? `finish or abort the ${first}`,
  );
}

function treeCheck(repo: RepoFacts): CheckResult {
  if (repo.changedFiles === 0) return ok('working tree', 'clean');
  const n = repo.changedFiles;
  return ok(
    'working tree',
    `${n} uncommitted change${n === 1 ? '' : 's'} (a run starts from them; cleanup gives them back uncommitted)`,
  );
}

function runsCheck(runs: readonly RunStatus[]): CheckResult {
  if (runs.length === 0) return ok('recorded runs', 'none');
  const names = (state: RunStatus['state']): string[] =>
    runs.filter((r) => r.state === state).map((r) => r.change);
  const parts = (['running', 'interrupted', 'unreadable', 'finished'] as const)
    .map((state) => ({ state, changes: names(state) }))
    .filter((p) => p.changes.length > 0)
    .map((p) => `${p.changes.length} ${p.state} (${p.changes.join(', ')})`);
  const detail = parts.join(', ');
  const trouble = runs.find((r) => r.state === 'interrupted' || r.state === 'unreadable');
  return trouble ? warn('recorded runs', detail, trouble.next) : ok('recorded runs', detail);
}

function openSpecChecks(openspec: OpenSpecFacts, cwd: string): CheckResult[] {
  if (!openspec.found) {
    return [
      fail(
        'openspec',
        `no openspec/ folder in ${cwd} or above`,
        'set OpenSpec up in your project with `npx @fission-ai/openspec init`, then `openspec new change <name>`',
      ),
    ];
  }
  const root = ok('openspec', `${openspec.root}/openspec`);
  if ('error' in openspec) {
    return [
      root,
      fail('changes', openspec.error, 'fix the files named above, then `ralphtool list`'),
    ];
  }
  const total = openspec.changes.length;
  if (total === 0) {
    return [
      root,
      warn(
        'changes',
        'none yet',
        'create one with `openspec new change <name>` and list its tasks in tasks.md',
      ),
    ];
  }
  const left = openspec.changes.filter(
    (c) => c.stories.total > 0 && c.stories.done < c.stories.total,
  ).length;
  const detail = `${total} change${total === 1 ? '' : 's'}, ${left} with work left`;
  if (left === 0) {
    return [
      root,
      warn(
        'changes',
        detail,
        "add unchecked tasks (`- [ ] …`) to a change's tasks.md, or create a new change",
      ),
    ];
  }
  return [root, ok('changes', detail)];
}

function where(program: ProgramFacts): string {
  return program.fromEnv ? `${program.fromEnv}=${program.program}` : program.program;
}

function programVersion(label: string, program: ProgramFacts & { path: string }): CheckResult {
  if (program.version !== null) return ok(label, `${program.version} (${program.path})`);
  return warn(
    label,
    `found at ${program.path}, but \`${label} --version\` failed: ${program.versionError ?? 'no output'}`,
    `check that it runs: ${program.path} --version`,
  );
}

function claudeCheck(claude: ProgramFacts): CheckResult {
  if (claude.path === null) {
    if (claude.fromEnv) {
      return fail(
        'claude',
        `${where(claude)} is not an executable file`,
        `point ${claude.fromEnv} at the claude program, or unset it`,
      );
    }
    return fail(
      'claude',
      'not found on PATH (the default agent)',
      `${installHint('claude')}, then run \`claude\` once to log in`,
    );
  }
  return programVersion('claude', { ...claude, path: claude.path });
}

/**
 * What the agent's own login status says, when it says something: not logged in fails for
 * claude (the default agent: `run` would fail every attempt) and warns for codex.
 */
function loginCheck(agent: 'claude' | 'codex', program: ProgramFacts): CheckResult[] {
  const login = program.login;
  const label = `${agent} login`;
  if (login === undefined || login.kind === 'unknown') return [];
  if (login.kind === 'logged-in') return [ok(label, `logged in (${login.how})`)];
  const detail = `not logged in: every attempt of --agent ${agent} would fail`;
  return [agent === 'claude' ? fail(label, detail, login.fix) : warn(label, detail, login.fix)];
}

/** An agent other than the default: missing is a warning, only `--agent <it>` needs it. */
function optionalAgentCheck(agent: 'codex' | 'gemini', program: ProgramFacts): CheckResult {
  if (program.path === null) {
    return warn(agent, `not found on PATH (only needed for --agent ${agent})`, installHint(agent));
  }
  return programVersion(agent, { ...program, path: program.path });
}

function openCodeCheck(opencode: ProgramFacts): CheckResult {
  if (opencode.path === null) {
    if (opencode.fromEnv) {
      return warn(
        'opencode',
        `${where(opencode)} is not an executable file (only needed for --agent opencode)`,
        `point ${opencode.fromEnv} at the opencode program, or unset it`,
      );
    }
    return warn(
      'opencode',
      'not found on PATH (only needed for --agent opencode)',
      `${installHint('opencode')}, then \`opencode auth login\` for its model provider`,
    );
  }
  return programVersion('opencode', { ...opencode, path: opencode.path });
}

function userCheck(facts: DoctorFacts): CheckResult {
  if (facts.uid !== 0)
    return ok('user', facts.uid === null ? 'not checked on this system' : 'not root');
  if (facts.sandbox) return ok('user', 'root, with IS_SANDBOX=1');
  return fail(
    'user',
    'root without IS_SANDBOX=1: Claude Code refuses --dangerously-skip-permissions as root',
    'on a sandbox machine (container, VM) set IS_SANDBOX=1; otherwise run ralphtool as a normal user',
  );
}
