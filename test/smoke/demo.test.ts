import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEMO_CHANGE } from '../../src/demo/project.js';
import { splitCommandLine } from '../../src/process/command-line.js';
import { execProgram } from '../../src/process/exec.js';
import { parseTasks } from '../../src/openspec/tasks.js';
import { CLI_PATH, runCli } from '../support/cli.js';
import { cleanGitEnv } from '../support/temp-repo.js';
import { demoDirFrom, makeDemoSandbox, type DemoSandbox } from '../demo/helpers.js';

const BRANCH = `ralph/${DEMO_CHANGE}`;
/**
 * A whole demo run (four stories, the example project's tests run for each attempt) takes ~10 s
 * on a quiet machine and went past the default 60 s with the machine loaded six-fold: generous,
 * as nothing here asserts on time.
 */
const DEMO_RUN_TIMEOUT_MS = 240_000;

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd: dir, env: cleanGitEnv(), encoding: 'utf8' }).trim();
}

describe('ralphtool demo without a terminal', () => {
  let sandbox: DemoSandbox | null = null;
  afterEach(() => sandbox?.remove());

  it(
    'runs the real loop to the end with a failed attempt and a retry, and says what to do next',
    async () => {
      sandbox = makeDemoSandbox();
      const started = Date.now();
      const run = await runCli(['demo'], { cwd: sandbox.root, env: sandbox.env });
      // Measured for the report, not asserted: the machine is shared.
      console.log(`ralphtool demo (non-TTY) took ${((Date.now() - started) / 1000).toFixed(1)} s`);
      expect(run.stderr).toBe('');
      expect(run.exitCode).toBe(0);

      const out = run.stdout;
      expect(out).toMatch(/agent is scripted \(no AI, no API key/);
      expect(out).toMatch(/✗ attempt 1 failed \(failed-signal\): countWords\(''\) is 1, not 0/);
      expect(out).toMatch(/↺ reverted to [0-9a-f]{8}; attempt saved as refs\/ralphtool\//);
      expect(out).toMatch(/Story 2: Word count \(attempt 2\/4\)/);
      expect(out).toMatch(/│ The prompt says the previous attempt failed: countWords/);
      expect(out).toMatch(/all stories complete · 4\/4 stories/);

      const dir = demoDirFrom(out);
      expect(dir.startsWith(path.join(sandbox.root, 'tmp'))).toBe(true);
      expect(git(dir, 'symbolic-ref', '--short', 'HEAD')).toBe(BRANCH);
      expect(git(dir, 'status', '--porcelain')).toBe('');
      expect(git(dir, 'log', '--format=%s', `main..${BRANCH}`).split('\n')).toEqual([
        'checkpoint: 4',
        'checkpoint: 3',
        'checkpoint: 2',
        'checkpoint: 1',
        'initial state',
      ]);
      // The failed attempt's broken work was saved before it was reverted.
      const saved = `refs/ralphtool/${DEMO_CHANGE}/attempts/2-1`;
      expect(git(dir, 'show', `${saved}:src/count-words.js`)).toContain("text.split(' ').length");
      expect(readFileSync(path.join(dir, 'src/count-words.js'), 'utf8')).not.toContain(
        "split(' ')",
      );
      const tasks = parseTasks(
        readFileSync(path.join(dir, 'openspec/changes', DEMO_CHANGE, 'tasks.md'), 'utf8'),
      );
      expect(tasks.every((s) => s.done)).toBe(true);

      // The example project's own tests (`npm test` runs `node --test`) pass.
      const tests = await execProgram(process.execPath, ['--test'], {
        baseEnv: process.env,
        cwd: dir,
        env: { NODE_TEST_CONTEXT: undefined },
        timeoutMs: 60_000,
        reject: false,
      });
      expect(tests.exitCode).toBe(0);
      expect(tests.stdout).toMatch(/^# pass 6$/m);

      expect(out).toContain(`The demo repository stays in place: ${dir}`);
      expect(out).toContain(`git -C ${dir} log --oneline ${BRANCH}`);
      // Run from the checkout, with no ralphtool on PATH (as after `npm ci && npm run demo`):
      // the hints name it by its path, and work as printed.
      const self = `node ${CLI_PATH}`;
      expect(out).toContain(`${self} run <change>`);
      expect(out).not.toMatch(/^ +ralphtool /m);
      expect(out).toContain('npm install -g @anthropic-ai/claude-code');
      const hint = new RegExp(
        `^ +(${self.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} -C \\S+ status)$`,
        'm',
      );
      const printed = hint.exec(out)?.[1];
      expect(printed, out).toBeDefined();
      const [program, ...args] = splitCommandLine(printed ?? '');
      expect(program).toBe('node');
      const status = await execProgram(process.execPath, args, {
        baseEnv: process.env,
        cwd: sandbox.root,
        env: sandbox.env,
        timeoutMs: 60_000,
        reject: false,
      });
      expect(status.exitCode, status.stderr).toBe(0);
      expect(status.stdout).toContain(DEMO_CHANGE);
    },
    DEMO_RUN_TIMEOUT_MS,
  );

  it(
    'writes only NDJSON events to stdout with --json, the explanations to stderr',
    async () => {
      sandbox = makeDemoSandbox();
      const run = await runCli(['demo', '--json'], { cwd: sandbox.root, env: sandbox.env });
      expect(run.exitCode).toBe(0);
      const events = run.events();
      expect(events[0]?.type).toBe('run.started');
      expect(events.find((e) => e.type === 'attempt.failed')).toMatchObject({
        storyId: '2',
        attempt: 1,
        kind: 'failed-signal',
      });
      expect(events.filter((e) => e.type === 'checkpoint.created')).toHaveLength(4);
      expect(events.at(-1)).toMatchObject({
        type: 'run.finished',
        outcome: 'complete',
        choice: 'keep',
        storiesCompleted: 4,
        storiesTotal: 4,
      });
      expect(run.stderr).toMatch(/agent is scripted/);
      const dir = demoDirFrom(run.stderr);
      expect(run.stderr).toContain(`git -C ${dir} log --oneline ${BRANCH}`);
    },
    DEMO_RUN_TIMEOUT_MS,
  );
});

describe('npm run demo', () => {
  it('says it is building before the build, which is otherwise silent for seconds', async () => {
    const pkg = JSON.parse(readFileSync(path.resolve('package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    const steps = (pkg.scripts.demo ?? '').split(' && ');
    const build = steps.findIndex((step) => step.startsWith('npm run build'));
    expect(build).toBeGreaterThan(0);
    // Every step before the build runs here as npm would run it: the first thing shown says why
    // nothing else is.
    let said = '';
    for (const step of steps.slice(0, build)) {
      const [program, ...args] = splitCommandLine(step);
      expect(program).toBe('node');
      const out = await execProgram(process.execPath, args, {
        baseEnv: process.env,
        cwd: path.resolve('.'),
        timeoutMs: 30_000,
      });
      said += out.stdout;
    }
    expect(said).toMatch(/^Building ralphtool first/);
  });
});
