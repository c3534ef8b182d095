// The GitHub Action as a runner runs it (issue: "tested as a runner runs it"): action.yml and
// plan/action.yml themselves, their steps run in order from a fresh copy of this repository,
// on fresh clones of a bare repository (the remote), with a PATH holding node, npm, git, a
// fake `gh` and the system's folders only — no agent CLI: the action installs the real Claude Code itself (from npm, at
// the version ralphtool pins; the machine's npm cache makes that offline), which talks to the
// scripted Anthropic API on 127.0.0.1. Three scheduled rounds and a runner killed mid-story.
// The sandbox (the action's default) is proven end to end once, by the example workflow as it
// is; the scheduled rounds run with the `sandbox` input off (NO_SANDBOX): installing and starting
// it in every round is what made this file slow, and it proves nothing more there.
import { Buffer } from 'node:buffer';
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runAction, type ActionResult, type RunnerContext } from '../support/action-runner.js';
import { runWorkflowJob } from '../support/workflow-runner.js';
import { quote } from '../support/fake-agent.js';
import {
  claudeEnv,
  startModelServer,
  type ModelServer,
  type ScriptedTurn,
} from '../support/model-server.js';
import { eventually } from '../support/processes.js';
import { stories } from '../run/helpers.js';
import { RemoteWorld, type Machine } from '../system/remote/world.js';
import { conversationPoint, scriptByAttempt, type AttemptPlans } from './conversations.js';

const CHANGE = 'on-a-runner';
const TASKS = `openspec/changes/${CHANGE}/tasks.md`;
const TOKEN = 'ghs_runnerTokenThatMustNotLeak123';
const FAKE_GH = path.resolve('test/system/actions/support/fake-gh.mjs');
const WORKFLOW = path.resolve('examples/github-actions/ralphtool.yml');
/** The scripted API takes any key: this one stands for the repository's secret. */
const SCRIPTED_KEY = 'sk-ant-scripted-model-server';
/** The action's `sandbox` input off: the rounds whose subject is not the sandbox. */
const NO_SANDBOX = { sandbox: 'false' } as const;

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const undo of cleanups.splice(0).reverse()) await undo();
});

function tempDir(prefix: string): string {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** What `uses: OWNER/ralphtool@REF` downloads: this repository's files (as they are here). */
function actionCopy(): string {
  const root = tempDir('ralphtool-action-');
  const files = execFileSync(
    'git',
    ['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
    {
      encoding: 'utf8',
    },
  )
    .split('\0')
    .filter((f) => f !== '' && existsSync(f));
  for (const file of files) cpSync(file, path.join(root, file));
  return root;
}

/**
 * A runner's PATH: node, npm and git, the fake gh, and the system's own folders (coreutils,
 * sh: the agent's shell tool and npm's install scripts need them) — and no agent CLI anywhere.
 */
function runnerPath(scratch: string, ghLog: string): string {
  const bin = path.join(scratch, 'runner-bin');
  mkdirSync(bin, { recursive: true });
  const which = (program: string): string =>
    execFileSync('sh', ['-c', `command -v ${program}`], { encoding: 'utf8' }).trim();
  symlinkSync(process.execPath, path.join(bin, 'node'));
  symlinkSync(realpathSync(which('npm')), path.join(bin, 'npm'));
  symlinkSync(which('git'), path.join(bin, 'git'));
  const gh = path.join(bin, 'gh');
  writeFileSync(
    gh,
    `#!/bin/sh\nFAKE_GH_LOG=${quote(ghLog)} exec ${quote(process.execPath)} ${quote(FAKE_GH)} "$@"\n`,
  );
  chmodSync(gh, 0o755);
  const searchPath = [bin, '/usr/bin', '/bin'].join(path.delimiter);
  for (const agent of ['claude', 'codex', 'gemini', 'opencode']) {
    const found = execFileSync('sh', ['-c', `command -v ${agent} || true`], {
      encoding: 'utf8',
      env: { PATH: searchPath },
    }).trim();
    expect(found, `${agent} must not be on the runner's PATH`).toBe('');
  }
  return searchPath;
}

interface Runner {
  world: RemoteWorld;
  actionRoot: string;
  server: ModelServer;
  path: string;
  ghLog: string;
}

/** One job on a fresh runner: a fresh clone, a fresh temp folder, the action with `inputs`. */
/** A remote with the change, the scripted API answering `plans`, and a runner's tools. */
async function setUp(
  storyCount: number,
  plans: AttemptPlans,
  scratch = tempDir('ralphtool-action-scratch-'),
): Promise<Runner> {
  const world = new RemoteWorld(CHANGE, stories(storyCount));
  cleanups.push(() => world.remove());
  const server = await startModelServer(scriptByAttempt(plans));
  cleanups.push(() => server.close());
  const ghLog = path.join(scratch, 'gh.log');
  return { world, actionRoot: actionCopy(), server, path: runnerPath(scratch, ghLog), ghLog };
}

/** A fresh runner: a fresh clone, a fresh temp folder and home, the runner's environment. */
function freshRunner(
  r: Runner,
  name: string,
): { machine: Machine; runnerTemp: string; ctx: Omit<RunnerContext, 'inputs' | 'actionPath'> } {
  const machine = r.world.clone(name);
  const runnerTemp = tempDir(`ralphtool-runner-${name}-`);
  const home = path.join(runnerTemp, 'home');
  mkdirSync(home);
  const claude = Object.fromEntries(
    Object.entries(claudeEnv(r.server.url, home)).filter(
      (entry): entry is [string, string] => entry[1] !== undefined,
    ),
  );
  // The key is the workflow's secret, given to the action's step only.
  delete claude.ANTHROPIC_API_KEY;
  return {
    machine,
    runnerTemp,
    ctx: {
      workspace: machine.dir,
      actionRoot: r.actionRoot,
      runnerTemp,
      artifacts: path.join(runnerTemp, 'artifacts'),
      token: TOKEN,
      env: {
        ...claude,
        PATH: r.path,
        HOME: home,
        // The machine's npm cache (filled by `npm ci`): the agent's install needs no network.
        npm_config_cache: path.join(os.homedir(), '.npm'),
        CI: 'true',
        GITHUB_ACTIONS: 'true',
        GITHUB_SERVER_URL: 'https://github.com',
        GITHUB_REPOSITORY: 'example/project',
        GITHUB_RUN_ID: `run-${name}`,
        GITHUB_RUN_ATTEMPT: '1',
        // What a runner gives every step: the agent must see none of these.
        ACTIONS_RUNTIME_TOKEN: 'actions-runtime-secret',
        ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'oidc-secret',
        ACTIONS_ID_TOKEN_REQUEST_URL: 'https://token.actions.example/',
      },
    },
  };
}

/** One job on a fresh runner: the action (or the plan action) with `inputs`. */
async function job(
  r: Runner,
  name: string,
  actionPath: '' | 'plan',
  inputs: Record<string, string>,
  onSpawn?: (pid: number) => void,
): Promise<ActionResult & { machine: Machine; runnerTemp: string }> {
  const { machine, runnerTemp, ctx } = freshRunner(r, name);
  const result = await runAction({
    ...ctx,
    env: { ...ctx.env, ANTHROPIC_API_KEY: SCRIPTED_KEY },
    actionPath,
    inputs,
    ...(onSpawn ? { onSpawn } : {}),
  });
  return { ...result, machine, runnerTemp };
}

/** A story's work with the Bash tool (relative paths: each job has its own clone). */
function storyWork(id: string, file: string): ScriptedTurn[] {
  return [
    [
      {
        tool: 'Bash',
        input: {
          command: `mkdir -p src && printf '${id}\\n' > src/${file} && sed -i 's/^- \\[ \\] ${id}\\.1 /- [x] ${id}.1 /' ${TASKS}`,
          description: `Story ${id}`,
        },
      },
    ],
    [{ text: `Story ${id} is done.\n\n<promise>COMPLETE</promise>` }],
  ];
}

/** How many conversations (claude processes) the model saw for a story. */
function conversations(server: ModelServer, storyId: string): number {
  return server.requests.filter((request) => {
    if (request.kind !== 'main') return false;
    const point = conversationPoint(request.body);
    return point?.storyId === storyId && point.step === 0;
  }).length;
}

function ghCalls(log: string): { argv: string[]; body: string | null }[] {
  if (!existsSync(log)) return [];
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { argv: string[]; body: string | null });
}

describe('the action on a runner, on a schedule', { timeout: 600_000 }, () => {
  it('cut by max-duration, killed mid-story, taken over, finished with one pull request, then left alone', async () => {
    const scratch = tempDir('ralphtool-action-scratch-');
    const released = path.join(scratch, 'released');
    const agentEnvDump = path.join(scratch, 'agent-env.txt');
    // Story 2 hangs until the test has killed its runner; its next try goes straight on. The
    // environment is written aside and renamed: the test waits for the file, and a redirect
    // creates it empty before env has written a byte.
    const story2: ScriptedTurn[] = [
      [
        {
          tool: 'Bash',
          input: {
            command: `env > ${quote(`${agentEnvDump}.part`)} && mv ${quote(`${agentEnvDump}.part`)} ${quote(agentEnvDump)}; for i in $(seq 120); do test -f ${quote(released)} && break; sleep 0.5; done`,
            description: 'Wait',
            timeout: 120_000,
          },
        },
      ],
      ...storyWork('2', 'two.txt'),
    ];
    const r = await setUp(
      3,
      {
        // Longer than job 1's --max-duration: its time runs out at the end of story 1.
        '1-1': [
          [{ tool: 'Bash', input: { command: 'sleep 1.5', description: 'Think' } }],
          ...storyWork('1', 'one.txt'),
        ],
        '2-1': story2,
        '2-2': story2,
        '3-1': storyWork('3', 'three.txt'),
      },
      scratch,
    );
    const { world, server, ghLog } = r;
    const claims = '--claim-ttl\n3s';

    // Round 1: the plan lists the change; its job runs out of time after story 1 (green).
    const plan1 = await job(r, 'plan1', 'plan', {});
    expect(plan1.success, plan1.stderr).toBe(true);
    expect(JSON.parse(plan1.outputs.changes ?? '')).toEqual([CHANGE]);
    const job1 = await job(r, 'job1', '', {
      change: CHANGE,
      'max-duration': '1s',
      args: claims,
      ...NO_SANDBOX,
    });
    expect(job1.success, job1.stderr).toBe(true);
    expect(job1.outputs).toMatchObject({ 'exit-code': '5', finished: 'false' });
    expect(job1.stderr).toMatch(/claude: installed @anthropic-ai\/claude-code@\S+ in \d+ ms/);
    expect(
      existsSync(path.join(job1.runnerTemp, 'artifacts', `ralphtool-${CHANGE}-run-job1-1`)),
    ).toBe(true);
    expect(ghCalls(ghLog).filter((c) => c.argv[1] === 'create')).toHaveLength(1);

    // Round 2: the runner dies in story 2 (kill -9 of the job and its agent).
    let jobPid = 0;
    expect(conversations(server, '2')).toBe(0);
    // Its agent writes its environment outside the work tree for the test to read, which the
    // sandbox would refuse.
    const job2 = job(
      r,
      'job2',
      '',
      { change: CHANGE, args: claims, ...NO_SANDBOX },
      (pid) => (jobPid = pid),
    );
    // Until story 2's agent is at work (or the job ended: then it says why).
    const early = await Promise.race([
      eventually(() => conversations(server, '2') === 1 && existsSync(agentEnvDump), 120_000).then(
        () => null,
      ),
      job2,
    ]);
    if (early !== null) {
      const events = path.join(early.runnerTemp, 'ralphtool', CHANGE, `${CHANGE}.ndjson`);
      expect(`${early.stderr}\n${readFileSync(events, 'utf8')}`).toBe('');
    }
    const dump = readFileSync(agentEnvDump, 'utf8');
    process.kill(-jobPid, 'SIGKILL');
    const killed = await job2;
    const state = JSON.parse(
      readFileSync(path.join(killed.machine.dir, '.git/ralphtool', CHANGE, 'state.json'), 'utf8'),
    ) as { agentPgid?: number | null };
    const agentPgid = state.agentPgid;
    if (typeof agentPgid === 'number') process.kill(-agentPgid, 'SIGKILL');
    writeFileSync(released, '');
    expect(killed.success).toBe(false);

    // What the agent saw: its key, none of the runner's or the forge's credentials.
    expect(dump).toContain('ANTHROPIC_API_KEY=');
    for (const secret of [
      TOKEN,
      'actions-runtime-secret',
      'oidc-secret',
      Buffer.from(`x-access-token:${TOKEN}`).toString('base64'),
    ]) {
      expect(dump.includes(secret), secret).toBe(false);
    }

    // Round 3: the next job takes the stale claim over and finishes; the pull request updated.
    await new Promise((resolve) => setTimeout(resolve, 3_500));
    const plan3 = await job(r, 'plan3', 'plan', {});
    expect(JSON.parse(plan3.outputs.changes ?? '')).toEqual([CHANGE]);
    const job3 = await job(r, 'job3', '', { change: CHANGE, args: claims, ...NO_SANDBOX });
    expect(job3.success, job3.stderr).toBe(true);
    expect(job3.outputs).toMatchObject({ 'exit-code': '0', finished: 'true' });
    expect(job3.stderr).toContain(`ralphtool resume ${CHANGE} --from origin`);
    const events3 = readFileSync(
      path.join(job3.runnerTemp, 'ralphtool', CHANGE, `${CHANGE}.ndjson`),
      'utf8',
    );
    expect(`${job3.stderr}${events3}`).toContain(`took over the claim of ${CHANGE} on origin`);
    expect(conversations(server, '1')).toBe(1); // story 1 never redone
    const calls = ghCalls(ghLog);
    expect(calls.filter((c) => c.argv[1] === 'create')).toHaveLength(1);
    expect(calls.filter((c) => c.argv[1] === 'edit').at(-1)?.body).toContain('**3/3 stories**');
    expect(JSON.stringify(calls)).not.toContain(TOKEN);

    // Round 4: finished on the remote (its pull request waits): no job; one started anyway is green.
    const before = server.requests.length;
    const plan4 = await job(r, 'plan4', 'plan', {});
    expect(JSON.parse(plan4.outputs.changes ?? '')).toEqual([]);
    const job4 = await job(r, 'job4', '', { change: CHANGE, args: claims, ...NO_SANDBOX });
    expect(job4.success, job4.stderr).toBe(true);
    expect(job4.stderr).toContain(`the run of ${CHANGE} finished on origin`);
    expect(server.requests.length).toBe(before);
    expect(world.remote('log', '--format=%s', `ralph/${CHANGE}`).split('\n').slice(0, 3)).toEqual([
      'checkpoint: 3',
      'checkpoint: 2',
      'checkpoint: 1',
    ]);
  });

  it('the example workflow, unchanged (sandboxed, the default): planned, run and finished with a pull request; the next schedule plans nothing', async () => {
    const r = await setUp(2, {
      '1-1': storyWork('1', 'one.txt'),
      '2-1': storyWork('2', 'two.txt'),
    });
    const { ghLog } = r;
    const secrets = { ANTHROPIC_API_KEY: SCRIPTED_KEY };

    const plan = await runWorkflowJob(WORKFLOW, 'plan', freshRunner(r, 'plan').ctx, {
      matrix: {},
      secrets,
      needs: {},
    });
    expect(plan.success).toBe(true);
    const changes = JSON.parse(plan.outputs.changes ?? '') as string[];
    expect(changes).toEqual([CHANGE]);
    for (const change of changes) {
      const runner = freshRunner(r, `run-${change}`);
      const ran = await runWorkflowJob(WORKFLOW, 'run', runner.ctx, {
        matrix: { change },
        secrets,
        needs: { plan },
      });
      expect(ran.success, ran.actions.map((a) => a.stderr).join('\n')).toBe(true);
      expect(ran.actions[0]?.outputs).toMatchObject({ 'exit-code': '0', finished: 'true' });
      // The action's default: the agent ran in the sandbox (installed by the job if missing).
      const events = readFileSync(
        path.join(runner.runnerTemp, 'ralphtool', change, `${change}.ndjson`),
        'utf8',
      );
      const started = events
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as { type: string; sandbox?: unknown })
        .find((e) => e.type === 'run.started');
      expect(started?.sandbox).toBeDefined();
      // The identity step of the workflow made ralphtool's commits.
      expect(runner.machine.git('log', '-1', '--format=%an', `ralph/${change}`).trim()).toBe(
        'ralphtool[bot]',
      );
    }
    const created = ghCalls(ghLog).filter((c) => c.argv[1] === 'create');
    expect(created).toHaveLength(1);
    expect(created[0]?.body).toContain('**2/2 stories**');

    const next = await runWorkflowJob(WORKFLOW, 'plan', freshRunner(r, 'plan-next').ctx, {
      matrix: {},
      secrets,
      needs: {},
    });
    expect(JSON.parse(next.outputs.changes ?? '')).toEqual([]);
  });

  it('refuses a change name that is not one of the repository’s, before anything', async () => {
    const r = await setUp(1, {});
    const { world, ghLog } = r;
    const forged = await job(r, 'forged', '', {
      change: `${CHANGE}\nfinished=true`,
      ...NO_SANDBOX,
    });
    expect(forged.success).toBe(false);
    expect(forged.exitCodes.run).toBe(2);
    expect(forged.stderr).toContain('is not one of this repository');
    expect(forged.outputs).toEqual({ 'exit-code': '', finished: '' });
    expect(forged.skipped).toContain('Keep the events and transcripts');
    expect(world.remoteRefs('refs/ralphtool/').size).toBe(0);
    expect(ghCalls(ghLog)).toEqual([]);
  });
});
