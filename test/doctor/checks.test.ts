import { describe, expect, it } from 'vitest';
import { plainStyle } from '../../src/format/style.js';
import type { RunStatus } from '../../src/run/status/status.js';
import {
  doctorChecks,
  doctorExitCode,
  parseGitVersion,
  type CheckResult,
} from '../../src/doctor/checks.js';
import type { DoctorFacts } from '../../src/doctor/facts.js';
import { renderDoctor } from '../../src/doctor/render.js';

function goodFacts(): DoctorFacts {
  return {
    git: { version: '2.39.5', raw: 'git version 2.39.5' },
    identity: { name: 'Ann', email: 'ann@example.com' },
    repo: {
      root: '/repo',
      head: { kind: 'branch', name: 'main', sha: 'a'.repeat(40) },
      changedFiles: 0,
      operations: [],
      runs: [],
    },
    openspec: {
      found: true,
      root: '/repo',
      changes: [
        {
          name: 'add-auth',
          path: 'openspec/changes/add-auth',
          stories: { total: 2, done: 1 },
          tasks: { total: 4, done: 2 },
          lastModified: '2026-01-01T00:00:00.000Z',
        },
      ],
    },
    claude: {
      program: 'claude',
      fromEnv: null,
      path: '/bin/claude',
      version: '2.1.197 (Claude Code)',
      versionError: null,
    },
    codex: { program: 'codex', fromEnv: null, path: null, version: null, versionError: null },
    opencode: {
      program: 'opencode',
      fromEnv: null,
      path: null,
      version: null,
      versionError: null,
    },
    gemini: { program: 'gemini', fromEnv: null, path: null, version: null, versionError: null },
    uid: 1000,
    sandbox: false,
    sandboxProblem: null,
  };
}

function check(results: CheckResult[], label: string): CheckResult {
  const found = results.find((r) => r.label === label);
  if (!found) throw new Error(`no ${label} check in ${results.map((r) => r.label).join(', ')}`);
  return found;
}

function run(overrides: Partial<RunStatus>): RunStatus {
  return {
    change: 'add-auth',
    state: 'interrupted',
    pid: null,
    outcome: null,
    choice: null,
    branch: 'ralph/add-auth',
    originalBranch: 'main',
    stories: { done: 1, total: 2 },
    currentStory: '2',
    currentAttempt: 1,
    costUsd: 0,
    startedAt: null,
    updatedAt: null,
    next: 'ralphtool resume add-auth   (or end it: ralphtool finish add-auth --cleanup|--keep)',
    error: null,
    ...overrides,
  };
}

describe('doctorChecks', () => {
  it('passes a good setup: every check ok but the optional codex, opencode and gemini, exit 0', () => {
    const results = doctorChecks(goodFacts(), '/repo');
    expect(results.map((r) => r.label)).toEqual([
      'git',
      'git identity',
      'repository',
      'branch',
      'git operation',
      'working tree',
      'recorded runs',
      'openspec',
      'changes',
      'claude',
      'codex',
      'opencode',
      'gemini',
      'user',
      '--sandbox',
    ]);
    expect(results.filter((r) => r.status !== 'ok').map((r) => r.label)).toEqual([
      'codex',
      'opencode',
      'gemini',
    ]);
    expect(check(results, 'codex').fix).toContain('@openai/codex');
    expect(check(results, 'opencode')).toMatchObject({
      detail: 'not found on PATH (only needed for --agent opencode)',
      fix: 'install OpenCode with `npm install -g opencode-ai`, then `opencode auth login` for its model provider',
    });
    expect(check(results, 'gemini')).toMatchObject({
      status: 'warn',
      detail: 'not found on PATH (only needed for --agent gemini)',
      fix: 'install Gemini CLI with `npm install -g @google/gemini-cli`',
    });
    expect(check(results, 'changes').detail).toBe('1 change, 1 with work left');
    expect(doctorExitCode(results)).toBe(0);
  });

  it('shows the version of opencode, and a RALPHTOOL_OPENCODE_BIN that points nowhere', () => {
    const found = goodFacts();
    found.opencode = {
      program: '/opt/opencode',
      fromEnv: 'RALPHTOOL_OPENCODE_BIN',
      path: '/opt/opencode',
      version: '1.18.33',
      versionError: null,
    };
    expect(check(doctorChecks(found, '/repo'), 'opencode')).toMatchObject({
      status: 'ok',
      detail: '1.18.33 (/opt/opencode)',
    });
    const wrong = goodFacts();
    wrong.opencode = { ...found.opencode, path: null, version: null };
    const results = doctorChecks(wrong, '/repo');
    expect(check(results, 'opencode')).toMatchObject({
      status: 'warn',
      detail:
        'RALPHTOOL_OPENCODE_BIN=/opt/opencode is not an executable file (only needed for --agent opencode)',
      fix: 'point RALPHTOOL_OPENCODE_BIN at the opencode program, or unset it',
    });
    // Only the default agent decides the exit code.
    expect(doctorExitCode(results)).toBe(0);
  });

  it('fails without claude, with the install fix', () => {
    const facts = goodFacts();
    facts.claude = { ...facts.claude, path: null, version: null };
    const results = doctorChecks(facts, '/repo');
    expect(check(results, 'claude')).toMatchObject({ status: 'fail' });
    expect(check(results, 'claude').fix).toContain('npm install -g @anthropic-ai/claude-code');
    expect(doctorExitCode(results)).toBe(1);
  });

  it('says what the agents’ own login status says: claude logged out fails, codex warns', () => {
    const facts = goodFacts();
    const fix = 'log in with `claude auth login`';
    facts.claude = { ...facts.claude, login: { kind: 'logged-out', fix } };
    facts.codex = {
      ...facts.codex,
      path: '/bin/codex',
      version: 'codex-cli 0.1',
      login: { kind: 'logged-out', fix: 'log in with `codex login`' },
    };
    const results = doctorChecks(facts, '/repo');
    expect(check(results, 'claude login')).toMatchObject({ status: 'fail', fix });
    expect(check(results, 'codex login')).toMatchObject({ status: 'warn' });
    expect(doctorExitCode(results)).toBe(1);

    facts.claude = { ...facts.claude, login: { kind: 'logged-in', how: 'claude.ai' } };
    facts.codex = { ...facts.codex, login: { kind: 'unknown' } };
    const again = doctorChecks(facts, '/repo');
    expect(check(again, 'claude login')).toMatchObject({
      status: 'ok',
      detail: 'logged in (claude.ai)',
    });
    expect(again.some((r) => r.label === 'codex login')).toBe(false);
    expect(doctorExitCode(again)).toBe(0);
  });

  it('names RALPHTOOL_CLAUDE_BIN when it points nowhere', () => {
    const facts = goodFacts();
    facts.claude = {
      ...facts.claude,
      program: '/nope/claude',
      fromEnv: 'RALPHTOOL_CLAUDE_BIN',
      path: null,
    };
    const claude = check(doctorChecks(facts, '/repo'), 'claude');
    expect(claude.status).toBe('fail');
    expect(claude.detail).toContain('RALPHTOOL_CLAUDE_BIN=/nope/claude');
  });

  it('warns when claude is there but --version fails', () => {
    const facts = goodFacts();
    facts.claude = { ...facts.claude, version: null, versionError: 'timed out after 15s' };
    const claude = check(doctorChecks(facts, '/repo'), 'claude');
    expect(claude.status).toBe('warn');
    expect(claude.detail).toContain('timed out');
  });

  it('fails as root without IS_SANDBOX=1, and passes with it', () => {
    const facts = { ...goodFacts(), uid: 0 };
    const results = doctorChecks(facts, '/repo');
    expect(check(results, 'user')).toMatchObject({ status: 'fail' });
    expect(check(results, 'user').fix).toContain('IS_SANDBOX=1');
    expect(doctorExitCode(results)).toBe(1);
    expect(check(doctorChecks({ ...facts, sandbox: true }, '/repo'), 'user').status).toBe('ok');
  });

  it('fails an old or missing git, and then checks no repository', () => {
    const old = doctorChecks(
      { ...goodFacts(), git: { version: '2.29.2', raw: 'git version 2.29.2' } },
      '/repo',
    );
    expect(check(old, 'git').status).toBe('fail');
    expect(check(old, 'git').fix).toContain('upgrade');
    const missing = doctorChecks({ ...goodFacts(), git: null, repo: null }, '/repo');
    expect(check(missing, 'git').status).toBe('fail');
    expect(missing.some((r) => r.label === 'repository')).toBe(false);
  });

  it('only warns about a missing identity: checkpoints fall back', () => {
    const results = doctorChecks(
      { ...goodFacts(), identity: { name: null, email: 'a@b' } },
      '/repo',
    );
    expect(check(results, 'git identity')).toMatchObject({ status: 'warn' });
    expect(check(results, 'git identity').fix).toContain('git config --global user.name');
    expect(doctorExitCode(results)).toBe(0);
  });

  it('fails outside a repository with how to get into one', () => {
    const results = doctorChecks({ ...goodFacts(), repo: null }, '/somewhere');
    expect(check(results, 'repository')).toMatchObject({ status: 'fail' });
    expect(check(results, 'repository').detail).toContain('/somewhere');
    expect(check(results, 'repository').fix).toContain('git init');
  });

  it('fails a merge in progress with the commands to end it', () => {
    const facts = goodFacts();
    if (facts.repo) facts.repo.operations = ['merge'];
    const op = check(doctorChecks(facts, '/repo'), 'git operation');
    expect(op.status).toBe('fail');
    expect(op.detail).toContain('a merge in progress');
    expect(op.fix).toContain('git merge --abort');
  });

  it('reports a dirty tree as fine, an interrupted run as a warning, its ralph/ branch as not ready', () => {
    const facts = goodFacts();
    if (facts.repo) {
      facts.repo.changedFiles = 3;
      facts.repo.head = { kind: 'branch', name: 'ralph/add-auth', sha: 'b'.repeat(40) };
      facts.repo.runs = [run({}), run({ change: 'old-one', state: 'finished' })];
    }
    const results = doctorChecks(facts, '/repo');
    expect(check(results, 'working tree').status).toBe('ok');
    expect(check(results, 'working tree').detail).toContain('3 uncommitted changes');
    // `run` refuses to start on a run's branch: the way out is the run's own next command.
    expect(check(results, 'branch').status).toBe('fail');
    expect(check(results, 'branch').detail).toContain('a new run cannot start here');
    expect(check(results, 'branch').fix).toContain('ralphtool resume add-auth');
    const runs = check(results, 'recorded runs');
    expect(runs.status).toBe('warn');
    expect(runs.detail).toBe('1 interrupted (add-auth), 1 finished (old-one)');
    expect(doctorExitCode(results)).toBe(1);
  });

  it('is not ready on a ralph/ branch without an active run (a kept or stray one)', () => {
    const facts = goodFacts();
    if (facts.repo) {
      facts.repo.head = { kind: 'branch', name: 'ralph/old-one', sha: 'b'.repeat(40) };
      facts.repo.runs = [run({ change: 'old-one', state: 'finished' })];
    }
    const results = doctorChecks(facts, '/repo');
    expect(check(results, 'branch')).toMatchObject({ status: 'fail' });
    expect(check(results, 'branch').fix).toContain('git switch <branch>');
    expect(doctorExitCode(results)).toBe(1);
    // On the user's own branch named like one (`ralphy/x`) nothing is wrong.
    if (facts.repo) facts.repo.head = { kind: 'branch', name: 'ralphy/x', sha: 'b'.repeat(40) };
    expect(check(doctorChecks(facts, '/repo'), 'branch').status).toBe('ok');
  });

  it('fails without openspec/, warns with nothing left to run', () => {
    const none = doctorChecks({ ...goodFacts(), openspec: { found: false } }, '/repo');
    expect(check(none, 'openspec').status).toBe('fail');
    expect(check(none, 'openspec').fix).toContain('openspec init');
    const done = goodFacts();
    if (done.openspec.found && 'changes' in done.openspec) {
      done.openspec.changes = done.openspec.changes.map((c) => ({
        ...c,
        stories: { total: 2, done: 2 },
      }));
    }
    expect(check(doctorChecks(done, '/repo'), 'changes')).toMatchObject({
      status: 'warn',
      detail: '1 change, 0 with work left',
    });
  });

  it('shows the version of a Gemini CLI that is there', () => {
    const gemini = {
      program: 'gemini',
      fromEnv: null,
      path: '/usr/bin/gemini',
      version: '0.61.0',
      versionError: null,
    };
    const results = doctorChecks({ ...goodFacts(), gemini }, '/repo');
    expect(check(results, 'gemini')).toMatchObject({
      status: 'ok',
      detail: '0.61.0 (/usr/bin/gemini)',
    });
  });

  it('says whether --sandbox works here, and what to do when not, without failing the doctor', () => {
    expect(check(doctorChecks(goodFacts(), '/repo'), '--sandbox')).toMatchObject({ status: 'ok' });
    const problem = { reason: 'bubblewrap (bwrap) not installed', remedy: 'install them' };
    const results = doctorChecks({ ...goodFacts(), sandboxProblem: problem }, '/repo');
    expect(check(results, '--sandbox')).toEqual({
      status: 'warn',
      label: '--sandbox',
      detail: 'cannot work here: bubblewrap (bwrap) not installed (only needed for --sandbox)',
      fix: 'install them',
    });
    expect(doctorExitCode(results)).toBe(0);
  });

  it('reads git versions', () => {
    expect(parseGitVersion('2.39.5')).toEqual([2, 39]);
    expect(parseGitVersion('2.30.0.windows.1')).toEqual([2, 30]);
    expect(parseGitVersion('unknown')).toBeNull();
  });
});

describe('renderDoctor', () => {
  it('prints one line per check with its symbol, the fix below, and a verdict', () => {
    const facts = { ...goodFacts(), uid: 0 };
    const text = renderDoctor(doctorChecks(facts, '/repo'), plainStyle);
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^✓ git +version 2\.39\.5$/);
    expect(lines).toContainEqual(expect.stringMatching(/^! codex +not found/));
    const user = lines.findIndex((l) => /^✗ user /.test(l));
    expect(lines[user + 1]).toMatch(/^ +fix: on a sandbox machine .*IS_SANDBOX=1/);
    expect(text).toMatch(/Not ready: 1 problem/);
  });

  it('never prints control characters that came from a program', () => {
    const facts = goodFacts();
    facts.claude = { ...facts.claude, version: '\u001b[2J1.0 (evil)' };
    expect(renderDoctor(doctorChecks(facts, '/repo'), plainStyle)).not.toContain('\u001b');
  });
});
