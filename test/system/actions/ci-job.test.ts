import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { validateAction, validateWorkflow } from '@action-validator/core';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { execProgram } from '../../../src/process/exec.js';
import { CLI_PATH } from '../../support/cli.js';
import { fakeAgentFlags, quote } from '../../support/fake-agent.js';
import { stories, succeed } from '../../run/helpers.js';
import { RemoteWorld, type Machine } from '../remote/world.js';

// The GitHub Actions pieces run here as a runner would run them: the job script on fresh clones
// of a bare repository (`origin`), the fake agent, and a fake `gh` on PATH that records its calls.

const CHANGE = 'on-ci';
const JOB = path.resolve('action/ralphtool-job.mjs');
const PLAN = path.resolve('action/ralphtool-plan.mjs');
const FAKE_GH = path.resolve('test/system/actions/support/fake-gh.mjs');
let world: RemoteWorld | undefined;
afterEach(() => {
  world?.remove();
  world = undefined;
});

interface GhCall {
  argv: string[];
  body: string | null;
}

/** A bin folder with `gh` (the fake) in it, and where it logs. */
function fakeGh(w: RemoteWorld): { bin: string; log: string } {
  const bin = path.join(w.scratch, 'bin');
  mkdirSync(bin, { recursive: true });
  const gh = path.join(bin, 'gh');
  writeFileSync(gh, `#!/bin/sh\nexec ${quote(process.execPath)} ${quote(FAKE_GH)} "$@"\n`);
  chmodSync(gh, 0o755);
  return { bin, log: path.join(w.scratch, 'gh.log') };
}

async function job(
  w: RemoteWorld,
  m: Machine,
  gh: { bin: string; log: string },
  maxDuration: string,
  more: Record<string, string> = {},
): Promise<{ exitCode: number; outputs: Record<string, string>; stderr: string; out: string }> {
  const out = path.join(w.scratch, `out-${path.basename(path.dirname(m.dir))}`);
  const outputs = path.join(out, 'github-output');
  mkdirSync(out, { recursive: true });
  const result = await execProgram(process.execPath, [JOB], {
    cwd: m.dir,
    baseEnv: process.env,
    env: {
      ...w.env(),
      PATH: `${gh.bin}:${process.env.PATH ?? ''}`,
      FAKE_GH_LOG: gh.log,
      RALPHTOOL_CLI: CLI_PATH,
      INPUT_CHANGE: CHANGE,
      INPUT_MAX_DURATION: maxDuration,
      INPUT_ARGS: fakeAgentFlags().join('\n'),
      // The fake agent logs each invocation outside the work tree, which --sandbox forbids: the
      // sandboxed job is test/compat/action-runner.test.ts's, with the real claude.
      INPUT_SANDBOX: 'false',
      OUT_DIR: out,
      GITHUB_OUTPUT: outputs,
      ...more,
    },
    timeoutMs: 240_000,
  }).catch((error: unknown) => error as { exitCode: number; stderr: string });
  const text = existsSync(outputs) ? readFileSync(outputs, 'utf8') : '';
  return {
    exitCode: result.exitCode ?? 1,
    stderr: result.stderr,
    out,
    outputs: Object.fromEntries(
      text
        .split('\n')
        .filter((l) => l.includes('='))
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    ),
  };
}

function calls(log: string): GhCall[] {
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as GhCall);
}

describe('the action and the example workflow', () => {
  it('are valid for GitHub (action-validator), and a broken one is not', () => {
    const action = readFileSync('action.yml', 'utf8');
    const workflow = readFileSync('examples/github-actions/ralphtool.yml', 'utf8');
    expect(validateAction(action).errors).toEqual([]);
    expect(validateAction(readFileSync('plan/action.yml', 'utf8')).errors).toEqual([]);
    // The example keeps the token out of the checkout and pins the action by its placeholders.
    const parsed = parse(workflow) as {
      jobs: Record<string, { steps: { uses?: string; with?: Record<string, unknown> }[] }>;
    };
    for (const [name, spec] of Object.entries(parsed.jobs)) {
      const checkout = spec.steps.find((step) => step.uses?.startsWith('actions/checkout@'));
      expect(checkout?.with?.['persist-credentials'], name).toBe(false);
    }
    const uses = Object.values(parsed.jobs).flatMap((j) => j.steps.map((s) => s.uses ?? ''));
    expect(uses).toEqual(
      expect.arrayContaining(['OWNER/ralphtool/plan@REF', 'OWNER/ralphtool@REF']),
    );
    expect(workflow).toContain('`OWNER/ralphtool@REF` below');
    expect(validateWorkflow(workflow).errors).toEqual([]);
    expect(validateWorkflow(workflow.replace('runs-on:', 'runs-onn:')).errors).not.toEqual([]);
    expect(validateAction(action.replace('using: composite', 'using: compost')).errors).not.toEqual(
      [],
    );
  });
});

describe('one job per change, continued by the next job', { timeout: 240_000 }, () => {
  it('a job cut by its time limit passes; the next one, on a fresh runner, finishes; one pull request, then updated', async () => {
    world = new RemoteWorld(CHANGE, [
      ...stories(2),
      { title: 'Pipes | and <b>tags</b>', tasks: ['x'] },
    ]);
    const w = world;
    w.scenario({
      '1-1': [{ sleep: 1_500 }, ...succeed('src/one.txt', 'one\n')],
      '2-1': succeed('src/two.txt', 'two\n'),
      '3-1': succeed('src/three.txt', 'three\n'),
    });
    const gh = fakeGh(w);

    // The plan: every change with stories left.
    const plan = await execProgram(process.execPath, [PLAN], {
      cwd: w.dir,
      baseEnv: process.env,
      env: { RALPHTOOL_CLI: CLI_PATH },
      timeoutMs: 60_000,
    });
    expect(JSON.parse(plan.stdout)).toEqual([CHANGE]);

    // Job 1: its time runs out after story 1 (exit 5 from ralphtool, the job passes).
    const first = await job(w, w.clone('job1'), gh, '1s');
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.outputs).toMatchObject({ 'exit-code': '5', finished: 'false' });
    expect(first.stderr).toContain(`ralphtool run ${CHANGE} --push origin`);
    const events = readFileSync(path.join(first.out, CHANGE, `${CHANGE}.ndjson`), 'utf8');
    expect(events).toContain('"limit.reached"');
    expect(readdirSync(path.join(first.out, CHANGE, 'transcripts'))).toContain('1-1.ndjson');
    const created = calls(gh.log).filter((c) => c.argv[1] === 'create');
    expect(created).toHaveLength(1);
    expect(created[0]?.argv).toEqual(
      expect.arrayContaining(['--head', `ralph/${CHANGE}`, '--base', 'main']),
    );
    expect(created[0]?.body).toContain('**1/3 stories**');

    // Job 2, a fresh runner: resumes from the remote and finishes; the pull request is updated.
    const second = await job(w, w.clone('job2'), gh, '330m');
    expect(second.exitCode, `${second.stderr}|${JSON.stringify(second.outputs)}`).toBe(0);
    expect(second.outputs).toMatchObject({ 'exit-code': '0', finished: 'true' });
    expect(second.stderr).toContain(`ralphtool resume ${CHANGE} --from origin`);
    const all = calls(gh.log);
    expect(all.filter((c) => c.argv[1] === 'create')).toHaveLength(1);
    const edited = all.filter((c) => c.argv[1] === 'edit');
    expect(edited).toHaveLength(1);
    expect(edited[0]?.argv.slice(0, 3)).toEqual(['pr', 'edit', '7']);
    expect(edited[0]?.body).toContain('**3/3 stories**');
    // A title with a pipe and HTML stays one plain table cell.
    expect(edited[0]?.body).toContain('| 3 | Pipes \\| and &lt;b&gt;tags&lt;/b&gt; | ✅ done |');
    expect(w.remoteRefs().has(`refs/ralphtool/${CHANGE}/claim`)).toBe(false);
  });
});

describe('the action as a worker', { timeout: 240_000 }, () => {
  it('takes up every change with work left, one pull request each; the next slot finds nothing', async () => {
    const w = (world = new RemoteWorld(CHANGE, stories(1)));
    // A second change on main, pushed.
    w.repo.write('openspec/changes/second/proposal.md', '# second\n\nWhy: a test.\n');
    w.repo.write('openspec/changes/second/tasks.md', '## 1. Story 1\n\n- [ ] 1.1 do it\n');
    w.git('add', '-A');
    w.git('commit', '-q', '-m', 'second');
    w.git('push', '-q', 'origin', 'main');
    w.scenario({ '1-1': succeed('src/one.txt', 'one\n') });
    const gh = fakeGh(w);
    const slot1 = w.clone('slot1');
    const both = await job(w, slot1, gh, '330m', { INPUT_WORKER: 'true' });
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toContain('give either the change or worker: true, not both');
    const asWorker = { INPUT_WORKER: 'true', INPUT_CHANGE: '' };
    const first = await job(w, slot1, gh, '330m', asWorker);
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.outputs).toMatchObject({ 'exit-code': '0', finished: 'true' });
    expect(first.outputs['artifact-name']).toMatch(/^ralphtool-worker-local-1-[0-9a-f]{8}$/);
    expect(first.stderr).toContain('ralphtool worker --from origin --json --max-duration 330m');
    const created = calls(gh.log).filter((c) => c.argv[1] === 'create');
    expect(created.map((c) => c.argv[c.argv.indexOf('--head') + 1]).sort()).toEqual([
      `ralph/${CHANGE}`,
      'ralph/second',
    ]);
    expect(readdirSync(path.join(first.out, 'worker', 'second', 'transcripts'))).toContain(
      '1-1.ndjson',
    );
    // Another slot: nothing left, it passes without a pull request.
    const second = await job(w, w.clone('slot2'), gh, '330m', asWorker);
    expect(second.exitCode, second.stderr).toBe(0);
    expect(calls(gh.log).filter((c) => c.argv[1] === 'create')).toHaveLength(2);
  });
});
