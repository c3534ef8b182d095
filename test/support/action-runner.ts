// Runs a composite action the way a GitHub runner does: its `action.yml` read with a YAML
// parser, inputs defaulted, each step's `if`, `env`, `with` and `run` evaluated with GitHub's
// expressions (the contexts an action of ours uses: github, runner, inputs, steps, secrets),
// `run:` steps started in order in the job's workspace with GITHUB_OUTPUT per step, and
// actions/upload-artifact done as a copy. Only what our actions use is understood: anything
// else throws, so a change to action.yml that this runner cannot honour fails loudly.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { shellWords } from './printed-command.js';

export interface RunnerContext {
  /** The job's checkout: where `run:` steps start. */
  workspace: string;
  /** A fresh copy of the action's repository (what `uses: owner/repo@ref` downloads). */
  actionRoot: string;
  /** The action's folder inside it ('' for the root's action.yml, 'plan' for plan/). */
  actionPath: string;
  runnerTemp: string;
  /** Where upload-artifact puts each artifact (a folder per name). */
  artifacts: string;
  /** `with:` of the step that uses the action. */
  inputs: Record<string, string>;
  /** The runner's own environment plus the workflow step's `env:`. */
  env: Record<string, string>;
  /** What `${{ github.token }}` is. */
  token: string;
  /** Called with each `run:` step's process (its own process group), e.g. to kill the job. */
  onSpawn?: (pid: number) => void;
}

export interface ActionResult {
  /** The step's exit code, by step id (or index), for the steps that ran. */
  exitCodes: Record<string, number>;
  /** The action's outputs as its `outputs:` say. */
  outputs: Record<string, string>;
  /** stderr of every `run:` step, in order. */
  stderr: string;
  /** Steps skipped by their `if`. */
  skipped: string[];
  /** True when every step that ran succeeded (the job's status). */
  success: boolean;
}

interface ActionStep {
  id?: string;
  name?: string;
  if?: string;
  shell?: string;
  run?: string;
  uses?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
  'working-directory'?: string;
}

interface ActionFile {
  inputs?: Record<string, { default?: string; required?: boolean }>;
  outputs?: Record<string, { value: string }>;
  runs: { using: string; steps: ActionStep[] };
}

export async function runAction(ctx: RunnerContext): Promise<ActionResult> {
  const dir = path.join(ctx.actionRoot, ctx.actionPath);
  const action = parse(readFileSync(path.join(dir, 'action.yml'), 'utf8')) as ActionFile;
  if (action.runs.using !== 'composite')
    throw new Error(`not a composite action: ${action.runs.using}`);
  const contexts: Contexts = {
    github: { action_path: dir, token: ctx.token },
    runner: { temp: ctx.runnerTemp },
    inputs: {},
    steps: {},
  };
  for (const [name, spec] of Object.entries(action.inputs ?? {})) {
    const given = ctx.inputs[name];
    contexts.inputs[name] = given ?? evaluateText(spec.default ?? '', contexts);
  }
  for (const name of Object.keys(ctx.inputs)) {
    if (!(name in (action.inputs ?? {}))) throw new Error(`the action has no input ${name}`);
  }
  const result: ActionResult = {
    exitCodes: {},
    outputs: {},
    stderr: '',
    skipped: [],
    success: true,
  };
  for (const [index, step] of action.runs.steps.entries()) {
    const key = step.id ?? String(index);
    if (!condition(step.if, contexts, result.success)) {
      result.skipped.push(step.name ?? key);
      continue;
    }
    if (step.uses !== undefined) {
      uploadArtifact(step, contexts, ctx);
      result.exitCodes[key] = 0;
      continue;
    }
    if (step.run === undefined) throw new Error(`step ${key} neither runs nor uses`);
    if (step.shell !== 'bash') throw new Error(`step ${key}: shell ${String(step.shell)}`);
    const outputFile = path.join(ctx.runnerTemp, `output-${key}-${String(Date.now())}`);
    writeFileSync(outputFile, '');
    const env: Record<string, string> = {
      ...ctx.env,
      GITHUB_ACTION_PATH: dir,
      RUNNER_TEMP: ctx.runnerTemp,
      GITHUB_OUTPUT: outputFile,
    };
    for (const [name, value] of Object.entries(step.env ?? {})) {
      env[name] = evaluateText(String(value), contexts);
    }
    const cwd = step['working-directory']
      ? evaluateText(step['working-directory'], contexts)
      : ctx.workspace;
    const words = shellWords(evaluateText(step.run.trim(), contexts));
    const [program, ...args] = words;
    if (program === undefined || words.join(' ').includes('\n')) {
      throw new Error(`step ${key}: one command expected, got ${step.run}`);
    }
    const ran = await start(program, args, {
      cwd,
      env,
      ...(ctx.onSpawn ? { onSpawn: ctx.onSpawn } : {}),
    });
    result.stderr += ran.stderr;
    result.exitCodes[key] = ran.code;
    contexts.steps[key] = { outputs: readOutputs(outputFile) };
    if (ran.code !== 0) result.success = false;
  }
  for (const [name, spec] of Object.entries(action.outputs ?? {})) {
    result.outputs[name] = evaluateText(spec.value, contexts);
  }
  return result;
}

interface Contexts {
  github: Record<string, string>;
  runner: Record<string, string>;
  inputs: Record<string, string>;
  steps: Record<string, { outputs: Record<string, string> }>;
}

/** `${{ expr }}` in a text, each replaced by its value ('' when it is unset, as GitHub does). */
function evaluateText(text: string, contexts: Contexts): string {
  return text.replace(/\$\{\{\s*(.*?)\s*\}\}/g, (_, expr: string) => lookup(expr, contexts));
}

/** A context path: github.x, runner.x, inputs.x, steps.<id>.outputs.x. */
function lookup(expr: string, contexts: Contexts): string {
  const parts = expr.split('.');
  const [root, ...rest] = parts;
  if (root === 'steps' && rest.length === 3 && rest[1] === 'outputs') {
    return contexts.steps[rest[0] ?? '']?.outputs[rest[2] ?? ''] ?? '';
  }
  if ((root === 'github' || root === 'runner' || root === 'inputs') && rest.length === 1) {
    const value = contexts[root][rest[0] ?? ''];
    if (value === undefined && root !== 'inputs') throw new Error(`unknown context ${expr}`);
    return value ?? '';
  }
  throw new Error(`an expression this runner does not know: ${expr}`);
}

/** A step's `if`: success() by default; `always()`, `&&` and `==`/`!=` against a string. */
function condition(text: string | undefined, contexts: Contexts, success: boolean): boolean {
  if (text === undefined) return success;
  const expr = text.replace(/^\$\{\{\s*|\s*\}\}$/g, '');
  const clauses = expr.split('&&').map((c) => c.trim());
  let always = false;
  let value = true;
  for (const clause of clauses) {
    if (clause === 'always()') {
      always = true;
      continue;
    }
    if (clause === 'success()') {
      value &&= success;
      continue;
    }
    const compare = /^(\S+)\s*(==|!=)\s*'(.*)'$/.exec(clause);
    if (!compare) throw new Error(`an if this runner does not know: ${clause}`);
    const left = lookup(compare[1] ?? '', contexts);
    value &&= compare[2] === '==' ? left === compare[3] : left !== compare[3];
  }
  return value && (always || success);
}

function uploadArtifact(step: ActionStep, contexts: Contexts, ctx: RunnerContext): void {
  if (!step.uses?.startsWith('actions/upload-artifact@')) {
    throw new Error(`an action this runner does not know: ${String(step.uses)}`);
  }
  const name = evaluateText(step.with?.name ?? '', contexts);
  const from = evaluateText(step.with?.path ?? '', contexts);
  if (name === '' || name.includes('/') || name.includes('\n')) {
    throw new Error(`upload-artifact: a bad name ${JSON.stringify(name)}`);
  }
  if (!existsSync(from)) return; // if-no-files-found: ignore
  mkdirSync(ctx.artifacts, { recursive: true });
  cpSync(from, path.join(ctx.artifacts, name), { recursive: true });
}

function readOutputs(file: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const at = line.indexOf('=');
    if (at > 0) outputs[line.slice(0, at)] = line.slice(at + 1);
  }
  return outputs;
}

function start(
  program: string,
  args: string[],
  opts: { cwd: string; env: Record<string, string>; onSpawn?: (pid: number) => void },
): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, {
      cwd: opts.cwd,
      env: opts.env,
      stdio: ['ignore', 'inherit', 'pipe'],
      detached: true,
    });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    if (child.pid !== undefined) opts.onSpawn?.(child.pid);
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 137 : 1), stderr }));
  });
}
