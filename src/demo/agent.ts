/**
 * The scripted agent of `ralphtool demo`, run as `node dist/demo/agent.js` through
 * `--agent command`: no AI, it performs demoPlan's steps on the demo project for
 * the story in RALPHTOOL_STORY_ID, narrating each one, and ends with a signal.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execProgram } from '../process/exec.js';
import { previousFailureReason, promptStory, tickStoryTasks, withExport } from './agent-text.js';
import { demoPlan, type DemoStep } from './script.js';

/**
 * Pause before each step: short enough that the whole demo stays well under 30 s, long enough
 * to watch. RALPHTOOL_DEMO_PAUSE_MS changes it (the test suite sets 0: it checks what the demo
 * does, not how it looks over time).
 */
const PAUSE_MS = pauseMs(process.env.RALPHTOOL_DEMO_PAUSE_MS);
const TEST_TIMEOUT_MS = 30_000;

interface AgentContext {
  root: string;
  change: string;
  storyId: string;
}

function say(text: string): void {
  process.stdout.write(`${text}\n`);
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function pauseMs(value: string | undefined): number {
  const ms = value === undefined || value.trim() === '' ? NaN : Number(value);
  return Number.isInteger(ms) && ms >= 0 ? ms : 200;
}

async function main(): Promise<void> {
  const ctx: AgentContext = {
    root: process.cwd(),
    change: process.env.RALPHTOOL_CHANGE ?? '',
    storyId: process.env.RALPHTOOL_STORY_ID ?? '',
  };
  const attempt = Number(process.env.RALPHTOOL_ATTEMPT ?? '1');
  const prompt = await readStdin();
  say(
    `demo agent (scripted, no AI) · ${promptStory(prompt) ?? `Story ${ctx.storyId}`} · attempt ${attempt}`,
  );
  const reason = previousFailureReason(prompt);
  if (reason !== null) say(`The prompt says the previous attempt failed: ${reason}`);

  const plan = demoPlan(ctx.storyId, attempt);
  if (plan === null) {
    say(`<promise>FAILED: the scripted demo agent knows no story ${ctx.storyId}</promise>`);
    return;
  }
  for (const step of plan.steps) {
    if (PAUSE_MS > 0) await sleep(PAUSE_MS);
    const failure = await perform(step, ctx);
    if (failure !== null) {
      say(`Giving up on this attempt: ${failure}`);
      say(`<promise>FAILED: ${failure}</promise>`);
      return;
    }
  }
  say('All tasks of this story are done and ticked.');
  say('<promise>COMPLETE</promise>');
}

/** Performs one step; returns why the attempt fails, or null. */
async function perform(step: DemoStep, ctx: AgentContext): Promise<string | null> {
  const file = (rel: string): string => path.join(ctx.root, rel);
  switch (step.kind) {
    case 'say':
      say(step.text);
      return null;
    case 'write': {
      const lines = step.content.split('\n').length - 1;
      say(`Writing ${step.path} (${lines} lines)`);
      await mkdir(path.dirname(file(step.path)), { recursive: true });
      await writeFile(file(step.path), step.content);
      return null;
    }
    case 'export': {
      say(`Exporting ${step.name} from src/index.js`);
      const index = await readFile(file('src/index.js'), 'utf8');
      await writeFile(file('src/index.js'), withExport(index, step.name, step.module));
      return null;
    }
    case 'edit': {
      say(`Editing ${step.path}`);
      const text = await readFile(file(step.path), 'utf8');
      if (!text.includes(step.find)) return `${step.path} does not look as expected`;
      await writeFile(file(step.path), text.replace(step.find, step.replace));
      return null;
    }
    case 'test':
      return runTests(step, ctx);
    case 'tick': {
      const tasksPath = file(path.join('openspec', 'changes', ctx.change, 'tasks.md'));
      const { text, ticked } = tickStoryTasks(await readFile(tasksPath, 'utf8'), ctx.storyId);
      await writeFile(tasksPath, text);
      say(`Ticking ${ticked.join(', ') || 'nothing (already ticked)'} in tasks.md`);
      return null;
    }
  }
}

async function runTests(
  step: Extract<DemoStep, { kind: 'test' }>,
  ctx: AgentContext,
): Promise<string | null> {
  const shown = ['node', '--test', ...step.files].join(' ');
  say(`Running ${shown}`);
  const result = await execProgram(process.execPath, ['--test', ...step.files], {
    cwd: ctx.root,
    // A program of its own (its own main), so it starts from its own environment.
    baseEnv: process.env,
    // A test runner above this process must not make `node --test` report to it instead.
    env: { NODE_TEST_CONTEXT: undefined },
    timeoutMs: TEST_TIMEOUT_MS,
    reject: false,
  });
  const passed = /^(?:#|ℹ) pass (\d+)/m.exec(result.stdout)?.[1];
  const failed = /^(?:#|ℹ) fail (\d+)/m.exec(result.stdout)?.[1];
  if (result.exitCode === 0) {
    say(`Tests pass (${passed ?? '?'} passed)`);
    return null;
  }
  say(`Tests fail (${failed ?? '?'} failed, exit code ${String(result.exitCode)})`);
  const count = failed === undefined ? 'the tests fail' : `${failed} failing`;
  return step.failure ? `${step.failure} (${count})` : `${shown}: ${count}`;
}

try {
  await main();
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  say(`<promise>FAILED: the demo agent hit an error: ${message.split('\n')[0] ?? ''}</promise>`);
}
