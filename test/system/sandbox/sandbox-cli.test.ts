import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { execProgram } from '../../../src/process/exec.js';
import { eventually, ofType, RunFixture, single, stories } from '../../run/helpers.js';
import { LiveCli } from '../../support/live-cli.js';
import { CLI_PATH, runCli } from '../../support/cli.js';
import { shellWords } from '../../support/printed-command.js';
import { sandboxToolsAvailable } from '../../support/sandbox-tools.js';

// docs/sandbox.md: with --sandbox an agent that reaches for what it must not (a key in ~/.ssh,
// a file outside the work tree, a server not on the allow-list, a forge token) gets nothing,
// and the run goes on to commit its work as usual.

const CHANGE = 'add-widgets';
const KEY = 'PRIVATE-KEY-5f3a9c';
const TOKEN = 'ghp_sandboxtesttoken1234567890abcdef';

let fixture: RunFixture | undefined;
const servers: Server[] = [];
afterEach(async () => {
  fixture?.remove();
  fixture = undefined;
  await Promise.all(servers.splice(0).map((s) => new Promise((done) => s.close(done))));
});

/** A server on loopback that answers `name` and counts what reached it. */
async function server(name: string): Promise<{ port: number; hits: () => number }> {
  let hits = 0;
  const s = createServer((_, res) => {
    hits += 1;
    res.end(`${name}-answered`);
  });
  servers.push(s);
  await new Promise<void>((done) => s.listen(0, '127.0.0.1', done));
  return { port: (s.address() as AddressInfo).port, hits: () => hits };
}

/** Everything the agent said, one message a line. */
function agentSaid(events: readonly { type: string; [key: string]: unknown }[]): string {
  return ofType(events, 'agent.message')
    .map((e) => String(e.text))
    .join('\n');
}

/** The agent: tries each forbidden thing, prints what it got, then does its story. */
const AGENT = `#!/bin/bash
echo "ssh: $(cat "$HOME/.ssh/id_rsa" 2>&1)"
echo "outside: $( (echo x > "$OUTSIDE/escaped") 2>&1 )"
echo "hook: $( (echo x > .git/hooks/pre-commit) 2>&1 )"
echo "token: \${GH_TOKEN:-unset}"
echo "denied: $(curl -s -m 10 "http://127.0.0.1:$DENIED_PORT/" 2>&1)"
echo "direct: $(curl -s -m 10 --noproxy '*' "http://127.0.0.1:$DENIED_PORT/" 2>&1; echo " exit $?")"
echo "allowed: $(curl -s -m 10 "http://127.0.0.1:$ALLOWED_PORT/" 2>&1)"
echo "tmp: $(mktemp)"
mkdir -p src && echo done > src/x.txt
sed -i 's/- \\[ \\]/- [x]/' "openspec/changes/$RALPHTOOL_CHANGE/tasks.md"
echo "<promise>COMPLETE</promise>"
`;

describe.skipIf(!sandboxToolsAvailable())('ralphtool run --sandbox with a command agent', () => {
  it('completes and commits, while every reach outside the policy gets nothing', async () => {
    fixture = new RunFixture(CHANGE, stories(1));
    const f = fixture;
    const home = path.join(f.scratch, 'home');
    mkdirSync(path.join(home, '.ssh'), { recursive: true });
    writeFileSync(path.join(home, '.ssh', 'id_rsa'), `${KEY}\n`);
    const outside = path.join(f.scratch, 'outside');
    mkdirSync(outside);
    const agent = path.join(f.scratch, 'agent.sh');
    writeFileSync(agent, AGENT);
    chmodSync(agent, 0o755);
    const allowed = await server('allowed');
    const denied = await server('denied');

    const result = await f.run(
      [
        ...['--json', '--sandbox', '--max-retries', '0', '--on-complete', 'keep'],
        ...['--agent', 'command', '--agent-command', agent],
        ...['--allow-host', `127.0.0.1:${String(allowed.port)}`],
      ],
      {
        agent: false,
        env: {
          HOME: home,
          GH_TOKEN: TOKEN,
          OUTSIDE: outside,
          DENIED_PORT: String(denied.port),
          ALLOWED_PORT: String(allowed.port),
        },
      },
    );
    expect(result.exitCode, result.stderr).toBe(0);
    const events = result.events();
    expect(single(events, 'run.started')).toMatchObject({
      sandbox: { hosts: [`127.0.0.1:${String(allowed.port)}`] },
    });
    expect(single(events, 'run.finished')).toMatchObject({ outcome: 'complete' });
    // The sandbox's own processes (bubblewrap, its proxy bridges) are no strays of the agent.
    expect(ofType(events, 'error')).toEqual([]);
    const said = agentSaid(events);
    // Nothing it must not have got.
    expect(said).not.toContain(KEY);
    expect(said).not.toContain(TOKEN);
    expect(said).toContain('token: unset');
    expect(said).not.toContain('denied-answered');
    expect(denied.hits()).toBe(0);
    expect(existsSync(path.join(outside, 'escaped'))).toBe(false);
    expect(said).toMatch(/outside: .*Read-only file system/);
    expect(said).toMatch(/hook: .*(Read-only file system|busy|denied)/i);
    expect(existsSync(path.join(f.dir, '.git', 'hooks', 'pre-commit'))).toBe(false);
    // What the policy allows works: the allowed host, a private temp folder, the work tree.
    expect(said).toContain('allowed: allowed-answered');
    expect(allowed.hits()).toBe(1);
    expect(said).toMatch(/tmp: \/\S+/);
    expect(f.read('src/x.txt')).toBe('done\n');
    expect(f.git('log', '-1', '--format=%s')).toContain('1');
    expect(f.git('status', '--porcelain')).toBe('');

    // What the sandbox refused is said, attributed to the attempt: the host not allowed, the
    // write outside the work tree and the one to git's hooks (the direct connection never left
    // the sandbox's network namespace: nothing to refuse there).
    const refusedHost = `127.0.0.1:${String(denied.port)}`;
    const escaped = path.join(realpathSync(outside), 'escaped');
    const hook = path.join(realpathSync(f.dir), '.git', 'hooks', 'pre-commit');
    const blocked = single(events, 'sandbox.blocked');
    expect(blocked).toMatchObject({ storyId: '1', attempt: 1 });
    expect(blocked.blocked).toEqual(
      expect.arrayContaining([
        { kind: 'network', target: refusedHost, count: 1 },
        { kind: 'write', target: escaped, count: 1 },
        { kind: 'write', target: hook, count: 1 },
      ]),
    );
    // Nothing the policy allows is called refused (the work tree, the private temp folder).
    for (const b of blocked.blocked as { target: string }[]) {
      expect(b.target.startsWith(`${realpathSync(f.dir)}/src`), b.target).toBe(false);
    }

    // The record says so: status, the report (a pull request's body), a resume keeps it.
    const host = `127.0.0.1:${String(allowed.port)}`;
    const status = await runCli(['status'], { cwd: f.dir, env: f.env() });
    expect(status.stdout).toContain(`sandboxed · network: the agent's API and ${host}`);
    const refusedLine = status.stdout.split('\n').find((l) => l.includes('⛔')) ?? '';
    expect(refusedLine).toContain('⛔ the sandbox refused: ');
    expect(refusedLine).toContain(`a connection to ${refusedHost}`);
    expect(refusedLine).toContain(`a write to ${escaped}`);
    const markdown = await runCli(['report', CHANGE, '--markdown'], { cwd: f.dir, env: f.env() });
    expect(markdown.stdout).toContain(
      `- Sandboxed (--sandbox): the agent wrote only in the work tree, read no credential store, and reached only its API and ${host}`,
    );
    expect(markdown.stdout).toContain('- Story 1: the sandbox refused: ');
    expect(markdown.stdout).toContain(`a connection to ${refusedHost}`);
    expect(markdown.stdout).toContain(`a write to ${escaped}`);
    const text = await runCli(['report', CHANGE], { cwd: f.dir, env: f.env() });
    expect(text.stdout).toContain(`Story 1: the sandbox refused: `);
    expect(text.stdout).toContain(`a connection to ${refusedHost}`);
    const json = await runCli(['report', CHANGE, '--json'], { cwd: f.dir, env: f.env() });
    expect(JSON.parse(json.stdout)).toMatchObject({ sandbox: { allowHosts: [host] } });
    expect(
      (JSON.parse(json.stdout) as { stories: { sandboxBlocks: unknown[] }[] }).stories[0]
        ?.sandboxBlocks,
    ).toEqual(expect.arrayContaining([{ kind: 'network', target: refusedHost, count: 1 }]));
    expect(f.state()).toMatchObject({ intent: { sandbox: true, allowHosts: [host] } });
  });
});

describe.skipIf(!sandboxToolsAvailable())('ralphtool run --sandbox with a long policy', () => {
  it('runs contained when the policy is too long for one argument (900 long deny-read paths)', async () => {
    fixture = new RunFixture(CHANGE, stories(1));
    const f = fixture;
    // 900 files denied, by long paths: their bwrap words (~160 KB) pass the kernel's 128 KB cap
    // on one argument, so the runtime hands bwrap the mounts through a file (its `/bin/sh` form).
    const secrets = path.join(f.scratch, `secrets-of-a-long-policy-${'x'.repeat(80)}`);
    mkdirSync(secrets);
    const denied: string[] = [];
    for (let i = 0; i < 900; i += 1) {
      const file = path.join(secrets, `credential-file-number-${String(i).padStart(5, '0')}.key`);
      writeFileSync(file, `${KEY}-${String(i)}\n`);
      denied.push(file);
    }
    const agent = path.join(f.scratch, 'agent.sh');
    writeFileSync(
      agent,
      `#!/bin/bash
echo "first: $(cat "$FIRST" 2>&1)"
echo "last: $(cat "$LAST" 2>&1)"
echo "outside: $( (echo x > "$OUTSIDE_FILE") 2>&1 )"
mkdir -p src && echo done > src/x.txt
sed -i 's/- \\[ \\]/- [x]/' "openspec/changes/$RALPHTOOL_CHANGE/tasks.md"
echo "<promise>COMPLETE</promise>"
`,
    );
    chmodSync(agent, 0o755);
    const result = await f.run(
      [
        ...['--json', '--sandbox', '--max-retries', '0', '--on-complete', 'keep'],
        ...['--agent', 'command', '--agent-command', agent],
        ...denied.flatMap((file) => ['--sandbox-deny-read', file]),
      ],
      {
        agent: false,
        env: {
          FIRST: denied[0] ?? '',
          LAST: denied.at(-1) ?? '',
          OUTSIDE_FILE: path.join(f.scratch, 'escaped'),
        },
      },
    );
    expect(result.exitCode, result.stderr || result.stdout.slice(-600)).toBe(0);
    const events = result.events();
    expect(single(events, 'run.finished')).toMatchObject({ outcome: 'complete' });
    expect(ofType(events, 'error')).toEqual([]);
    const said = agentSaid(events);
    expect(said).not.toContain(KEY);
    expect(said).toMatch(/first: \S/);
    expect(said).toMatch(/last: \S/);
    expect(said).toMatch(/outside: .*Read-only file system/);
    expect(existsSync(path.join(f.scratch, 'escaped'))).toBe(false);
    expect(f.git('show', `ralph/${CHANGE}:src/x.txt`)).toBe('done\n');
  });
});

describe('ralphtool run --sandbox where it cannot work', () => {
  it('refuses in one line naming what to install, and leaves the repository as it was', async () => {
    fixture = new RunFixture(CHANGE, stories(1));
    const f = fixture;
    // A PATH with everything the run needs but bubblewrap.
    const bin = path.join(f.scratch, 'bin');
    mkdirSync(bin);
    for (const tool of ['git', 'which', 'socat', 'rg', 'bash', 'sh']) {
      const found = execFileSync('which', [tool], { encoding: 'utf8' }).trim();
      symlinkSync(found, path.join(bin, tool));
    }
    const before = {
      refs: f.git('for-each-ref'),
      status: f.git('status', '--porcelain'),
      head: f.git('rev-parse', 'HEAD'),
    };
    const result = await f.run(
      ['--sandbox', '--on-complete', 'keep', '--agent', 'command', '--agent-command', '/bin/true'],
      { agent: false, env: { PATH: bin } },
    );
    expect(result.exitCode).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/--sandbox cannot work here: .*bwrap/);
    expect(lines[0]).toContain('install them (`apt-get install bubblewrap socat ripgrep`)');
    expect(result.stdout).toBe('');
    // The advice works as printed (here, where the packages are installed: a no-op for root).
    if (process.getuid?.() === 0) {
      const [program = '', ...args] = shellWords(
        /`(apt-get [^`]+)`/.exec(lines[0] ?? '')?.[1] ?? '',
      );
      const apt = await execProgram(program, args, {
        cwd: f.scratch,
        baseEnv: process.env,
        reject: false,
      });
      expect(apt.exitCode, apt.stderr).toBe(0);
    }
    expect(f.git('for-each-ref')).toBe(before.refs);
    expect(f.git('status', '--porcelain')).toBe(before.status);
    expect(f.git('rev-parse', 'HEAD')).toBe(before.head);
    expect(existsSync(path.join(f.dir, '.git', 'ralphtool'))).toBe(false);
  });
});

describe('ralphtool run --sandbox where user namespaces are refused', () => {
  it('refuses on its probe (the runtime itself sets up fine there), repository untouched', async () => {
    fixture = new RunFixture(CHANGE, stories(1));
    const f = fixture;
    const head = f.git('rev-parse', 'HEAD');
    // ralphtool itself inside a bubblewrap that forbids further user namespaces.
    const result = await execProgram(
      'bwrap',
      [
        ...['--dev-bind', '/', '/', '--unshare-user', '--disable-userns', '--'],
        ...[process.execPath, CLI_PATH, 'run', CHANGE, '--sandbox', '--on-complete', 'keep'],
        ...['--agent', 'command', '--agent-command', '/bin/true'],
      ],
      { cwd: f.dir, baseEnv: process.env, env: f.env(), reject: false, timeoutMs: 60_000 },
    );
    expect(result.exitCode).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(
      /a sandboxed `true` failed \(bwrap: .*\): allow unprivileged user namespaces/,
    );
    expect(f.git('rev-parse', 'HEAD')).toBe(head);
    expect(f.git('branch', '--list', 'ralph/*')).toBe('');
    expect(existsSync(path.join(f.dir, '.git', 'ralphtool'))).toBe(false);
  });
});

/** Pids of processes whose command line is exactly `words`. */
function processesRunning(words: readonly string[]): number[] {
  const want = words.join('\0');
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0$/, '') === want;
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe('ralphtool run --sandbox stopped by the user', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s stops the run as without the sandbox (exit 130), and nothing the agent started lives on',
    async (signal) => {
      fixture = new RunFixture(CHANGE, stories(1));
      const f = fixture;
      const marker = String(300 + Math.floor(Math.random() * 600));
      const agent = path.join(f.scratch, 'agent.sh');
      writeFileSync(agent, `#!/bin/bash\nsleep ${marker} &\necho working\nwait\n`);
      chmodSync(agent, 0o755);
      const live = new LiveCli(
        [
          ...['run', CHANGE, '--json', '--sandbox', '--on-complete', 'keep'],
          ...['--agent', 'command', '--agent-command', agent],
        ],
        f.dir,
        f.env(),
      );
      await live.waitFor((e) => e.type === 'agent.message' && e.text === 'working');
      // The background sleep may still be a forked shell when the line arrives.
      expect(await eventually(() => processesRunning(['sleep', marker]).length === 1)).toBe(true);
      live.signal(signal);
      const exit = await live.exited;
      expect(exit.code).toBe(130);
      expect(single(live.events, 'run.finished')).toMatchObject({ outcome: 'stopped' });
      expect(await eventually(() => processesRunning(['sleep', marker]).length === 0)).toBe(true);
      expect(f.git('status', '--porcelain')).toBe('');
    },
  );
});

describe('ralphtool resume of a sandboxed run', () => {
  it('keeps the sandbox and its hosts without the flags; --no-sandbox replaces it with a notice', async () => {
    fixture = new RunFixture(CHANGE, stories(2));
    const f = fixture;
    const ready = path.join(f.scratch, 'ready');
    const agent = path.join(f.scratch, 'agent.sh');
    writeFileSync(
      agent,
      [
        '#!/bin/bash',
        `if [ ! -e ${ready}/$RALPHTOOL_STORY_ID ]; then echo "<promise>FAILED: not yet</promise>"; exit 0; fi`,
        `sed -i "s/- \\[ \\] $RALPHTOOL_STORY_ID\\./- [x] $RALPHTOOL_STORY_ID./" "openspec/changes/$RALPHTOOL_CHANGE/tasks.md"`,
        'echo "<promise>COMPLETE</promise>"',
        '',
      ].join('\n'),
    );
    chmodSync(agent, 0o755);
    mkdirSync(ready);
    const first = await f.run(
      [
        ...['--json', '--sandbox', '--allow-host', 'registry.npmjs.org', '--max-retries', '0'],
        ...['--on-complete', 'keep', '--agent', 'command', '--agent-command', agent],
      ],
      { agent: false },
    );
    expect(first.exitCode).not.toBe(0);

    writeFileSync(path.join(ready, '1'), '');
    const resumed = await runCli(['resume', CHANGE, '--json', '--on-complete', 'keep'], {
      cwd: f.dir,
      env: f.env(),
    });
    expect(single(resumed.events(), 'run.started')).toMatchObject({
      sandbox: { hosts: ['registry.npmjs.org'] },
    });

    const uncontained = await runCli(
      ['resume', CHANGE, '--json', '--on-complete', 'keep', '--no-sandbox'],
      { cwd: f.dir, env: f.env() },
    );
    expect(uncontained.stderr).toContain('--sandbox is now off (the run had on)');
    expect(single(uncontained.events(), 'run.started').sandbox).toBeUndefined();
  });
});

describe('ralphtool run --sandbox --worktree', () => {
  it('commits in the run’s own worktree (its git directory and the shared one writable), hooks still read-only', async () => {
    fixture = new RunFixture(CHANGE, stories(1));
    const f = fixture;
    const agent = path.join(f.scratch, 'agent.sh');
    writeFileSync(
      agent,
      [
        '#!/bin/bash',
        'echo "hook: $( (echo x > "$(git rev-parse --git-common-dir)/hooks/post-commit") 2>&1 )"',
        'mkdir -p src && echo done > src/x.txt',
        // The agent's own git works: a commit of its own in the worktree.
        'git add -A && git -c user.name=a -c user.email=a@b commit -qm "agent commit" && echo committed',
        'sed -i "s/- \\[ \\]/- [x]/" "openspec/changes/$RALPHTOOL_CHANGE/tasks.md"',
        'echo "<promise>COMPLETE</promise>"',
        '',
      ].join('\n'),
    );
    chmodSync(agent, 0o755);
    const result = await f.run(
      [
        ...['--json', '--sandbox', '--worktree', '--max-retries', '0', '--on-complete', 'keep'],
        ...['--agent', 'command', '--agent-command', agent],
      ],
      { agent: false },
    );
    expect(result.exitCode, result.stderr).toBe(0);
    const events = result.events();
    expect(single(events, 'run.finished')).toMatchObject({ outcome: 'complete' });
    const said = agentSaid(events);
    expect(said).toContain('committed');
    expect(said).toMatch(/hook: .*Read-only file system/);
    expect(existsSync(path.join(f.dir, '.git', 'hooks', 'post-commit'))).toBe(false);
    expect(f.git('show', `ralph/${CHANGE}:src/x.txt`)).toBe('done\n');
  });
});
