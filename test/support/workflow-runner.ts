// Runs one job of a workflow file the way GitHub does, for the example workflow of our action:
// actions/checkout is the job's fresh clone (given), actions/setup-node a no-op (node is on
// PATH), `run:` steps one command per line (no shell: each line split into words, as the
// example's lines are plain commands), and `uses: OWNER/ralphtool@REF` (or `/plan@REF`) the
// action itself through the action runner. Expressions: matrix, secrets, steps.<id>.outputs,
// needs.<job>.outputs. Anything else throws.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { runAction, type ActionResult, type RunnerContext } from './action-runner.js';
import { shellWords } from './printed-command.js';

interface WorkflowStep {
  id?: string;
  name?: string;
  uses?: string;
  run?: string;
  env?: Record<string, string>;
  with?: Record<string, unknown>;
}

interface WorkflowJob {
  steps: WorkflowStep[];
  outputs?: Record<string, string>;
}

export interface WorkflowContexts {
  matrix: Record<string, string>;
  secrets: Record<string, string>;
  needs: Record<string, { outputs: Record<string, string> }>;
}

export interface JobResult {
  success: boolean;
  outputs: Record<string, string>;
  /** What each step that used the action got, in order. */
  actions: ActionResult[];
}

/**
 * Runs job `name` of the workflow at `file` in `runner.workspace`. `runner` is the action
 * runner's context without the action's inputs (they come from the step's `with:`).
 */
export async function runWorkflowJob(
  file: string,
  name: string,
  runner: Omit<RunnerContext, 'inputs' | 'actionPath'>,
  contexts: WorkflowContexts,
): Promise<JobResult> {
  const workflow = parse(readFileSync(file, 'utf8')) as { jobs: Record<string, WorkflowJob> };
  const job = workflow.jobs[name];
  if (!job) throw new Error(`no job ${name} in ${file}`);
  const steps: Record<string, { outputs: Record<string, string> }> = {};
  const result: JobResult = { success: true, outputs: {}, actions: [] };
  const evaluate = (text: string): string =>
    text.replace(/\$\{\{\s*(.*?)\s*\}\}/g, (_, expr: string) => value(expr, contexts, steps));
  for (const [index, step] of job.steps.entries()) {
    const key = step.id ?? String(index);
    if (
      step.uses?.startsWith('actions/checkout@') ||
      step.uses?.startsWith('actions/setup-node@')
    ) {
      continue; // the workspace is the job's fresh clone; node is on PATH
    }
    if (step.uses !== undefined) {
      const match = /^OWNER\/ralphtool(\/plan)?@REF$/.exec(step.uses);
      if (!match) throw new Error(`an action this runner does not know: ${step.uses}`);
      const inputs = Object.fromEntries(
        Object.entries(step.with ?? {}).map(([k, v]) => [k, evaluate(String(v))]),
      );
      const env = { ...runner.env };
      for (const [k, v] of Object.entries(step.env ?? {})) env[k] = evaluate(v);
      const ran = await runAction({
        ...runner,
        env,
        inputs,
        actionPath: match[1] ? 'plan' : '',
      });
      result.actions.push(ran);
      steps[key] = { outputs: ran.outputs };
      if (!ran.success) return { ...result, success: false };
      continue;
    }
    for (const line of (step.run ?? '').split('\n').filter((l) => l.trim() !== '')) {
      const [program, ...args] = shellWords(evaluate(line.trim()));
      if (program === undefined) continue;
      const ran = spawnSync(program, args, { cwd: runner.workspace, env: runner.env });
      if (ran.status !== 0) return { ...result, success: false };
    }
  }
  for (const [output, text] of Object.entries(job.outputs ?? {})) {
    result.outputs[output] = evaluate(text);
  }
  return result;
}

function value(
  expr: string,
  contexts: WorkflowContexts,
  steps: Record<string, { outputs: Record<string, string> }>,
): string {
  const [root, ...rest] = expr.split('.');
  if (root === 'matrix' && rest.length === 1) return contexts.matrix[rest[0] ?? ''] ?? '';
  if (root === 'secrets' && rest.length === 1) return contexts.secrets[rest[0] ?? ''] ?? '';
  if (root === 'steps' && rest[1] === 'outputs')
    return steps[rest[0] ?? '']?.outputs[rest[2] ?? ''] ?? '';
  if (root === 'needs' && rest[1] === 'outputs') {
    return contexts.needs[rest[0] ?? '']?.outputs[rest[2] ?? ''] ?? '';
  }
  throw new Error(`an expression this runner does not know: ${expr}`);
}
