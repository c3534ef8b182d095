import path from 'node:path';
import { agentLogin } from '../agents/login-status.js';
import { sandboxProblem } from '../process/sandbox.js';
import { findProgram } from '../agents/preflight.js';
import { vendorProgram, type AgentProgram } from '../agents/programs.js';
import { RalphError } from '../core/errors.js';
import { GitError } from '../git/git-error.js';
import { git, type GitContext } from '../git/git.js';
import { headPosition, locateRepo } from '../git/repo.js';
import { operationsInProgress, statusEntries } from '../git/status.js';
import { execProgram, SHORT_ANSWER_MAX_BUFFER } from '../process/exec.js';
import { ProcessError } from '../process/process-error.js';
import { collectRunStatuses } from '../run/status/status.js';
import { listChanges } from '../openspec/changes.js';
import { findOpenSpecRoot } from '../openspec/root.js';
import type { DoctorFacts, OpenSpecFacts, ProgramFacts, RepoFacts } from './facts.js';

export interface GatherOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Limit for each git command. */
  timeoutMs: number;
  /** Limit for each agent program's `--version` (`claude`, `codex`, `opencode`, `gemini`). */
  versionTimeoutMs: number;
  uid: number | null;
}

/** Looks at the machine and the directory without changing anything. */
export async function gatherFacts(opts: GatherOptions): Promise<DoctorFacts> {
  const ctx: GitContext = { cwd: opts.cwd, timeoutMs: opts.timeoutMs, baseEnv: opts.env };
  const [gitFacts, claude, codex, opencode, gemini, sandboxIssue] = await Promise.all([
    gitVersion(ctx),
    withLogin('claude', programFacts(vendorProgram('claude', opts.env), opts), opts),
    withLogin('codex', programFacts(vendorProgram('codex', opts.env), opts), opts),
    programFacts(vendorProgram('opencode', opts.env), opts),
    programFacts(vendorProgram('gemini', opts.env), opts),
    sandboxProblem(opts.env),
  ]);
  const repo = gitFacts ? await repoFacts(ctx) : null;
  const openspec = await openSpecFacts(opts.cwd);
  return {
    git: gitFacts,
    identity: gitFacts ? await identity(ctx, opts.env) : { name: null, email: null },
    repo,
    openspec,
    claude,
    codex,
    opencode,
    gemini,
    uid: opts.uid,
    sandbox: opts.env.IS_SANDBOX === '1',
    sandboxProblem: sandboxIssue,
  };
}

async function gitVersion(ctx: GitContext): Promise<DoctorFacts['git']> {
  try {
    const raw = (await git(ctx, ['--version'])).stdout.trim();
    const version = /(\d+\.\d+(?:\.\d+)?)/.exec(raw)?.[1] ?? null;
    return { version, raw };
  } catch (error) {
    // git ran but failed: report what it said; any other refusal means it is not there.
    if (error instanceof GitError) return { version: null, raw: error.message };
    if (error instanceof RalphError) return null;
    throw error;
  }
}

async function identity(ctx: GitContext, env: NodeJS.ProcessEnv): Promise<DoctorFacts['identity']> {
  const value = async (key: string, variable: string): Promise<string | null> => {
    const result = await git(ctx, ['config', '--get', key], { allowFailure: true });
    const configured = result.exitCode === 0 ? result.stdout.trim() : '';
    return configured || env[variable]?.trim() || null;
  };
  return {
    name: await value('user.name', 'GIT_AUTHOR_NAME'),
    email: await value('user.email', 'GIT_AUTHOR_EMAIL'),
  };
}

async function repoFacts(ctx: GitContext): Promise<RepoFacts | null> {
  const repo = await locateRepo(ctx);
  if (!repo) return null;
  const top = { ...ctx, cwd: repo.root };
  let specRel: string | null;
  try {
    specRel = path.relative(repo.root, findOpenSpecRoot(ctx.cwd)).split(path.sep).join('/');
  } catch {
    specRel = null;
  }
  return {
    root: repo.root,
    head: await headPosition(top),
    changedFiles: (await statusEntries(top, { readOnly: true })).length,
    operations: await operationsInProgress(repo.gitDir),
    runs: await collectRunStatuses(repo, specRel, ctx.timeoutMs, ctx.baseEnv),
  };
}

async function openSpecFacts(cwd: string): Promise<OpenSpecFacts> {
  let root: string;
  try {
    root = findOpenSpecRoot(cwd);
  } catch {
    return { found: false };
  }
  try {
    return { found: true, root, changes: await listChanges(root) };
  } catch (error) {
    return { found: true, root, error: error instanceof Error ? error.message : String(error) };
  }
}

/** The program's facts and, when it was found, what its login status command says. */
async function withLogin(
  agent: 'claude' | 'codex',
  facts: Promise<ProgramFacts>,
  opts: GatherOptions,
): Promise<ProgramFacts> {
  const found = await facts;
  if (found.path === null) return found;
  return { ...found, login: await agentLogin(agent, opts.env, opts.cwd) };
}

async function programFacts(which: AgentProgram, opts: GatherOptions): Promise<ProgramFacts> {
  const found = findProgram(which.program, opts.env, opts.cwd);
  const facts: ProgramFacts = { ...which, path: found, version: null, versionError: null };
  if (found === null) return facts;
  try {
    // Run it with the environment it was looked up in (RALPHTOOL_CLAUDE_BIN, PATH, HOME…).
    const result = await execProgram(found, ['--version'], {
      cwd: opts.cwd,
      baseEnv: opts.env,
      timeoutMs: opts.versionTimeoutMs,
      maxBuffer: SHORT_ANSWER_MAX_BUFFER,
    });
    const line = `${result.stdout}\n${result.stderr}`.split('\n').find((l) => l.trim() !== '');
    return {
      ...facts,
      version: line?.trim() ?? null,
      versionError: line ? null : 'printed nothing',
    };
  } catch (error) {
    if (!(error instanceof ProcessError)) throw error;
    return { ...facts, versionError: error.message };
  }
}
