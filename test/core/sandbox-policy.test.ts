import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AGENT_HOSTS,
  agentConfigFiles,
  agentStateFolders,
  allowedHosts,
  configuredHosts,
  allowHostProblem,
  CREDENTIAL_STORES,
  innerCommand,
  sandboxPolicy,
  uncontainedReason,
  type SandboxAgent,
} from '../../src/core/sandbox-policy.js';

// docs/sandbox.md: what an agent may do inside --sandbox, decided in pure code.

const AGENTS: SandboxAgent[] = ['claude', 'codex', 'opencode', 'gemini', 'command'];
const PLACE = {
  home: '/home/u',
  workTree: '/work/repo',
  gitDir: '/work/repo/.git',
  gitCommonDir: '/work/repo/.git',
  tmpDir: '/tmp/ralphtool-sandbox-x/tmp-1',
};

function policy(agent: SandboxAgent, env: Record<string, string> = {}, allowHosts: string[] = []) {
  return sandboxPolicy({
    agent,
    place: PLACE,
    env,
    allowHosts,
    extraDenyRead: ['~/.config/mine', '/srv/secrets'],
  });
}

describe('the sandbox policy', () => {
  it.each(AGENTS)('%s writes only its work tree, git dir, own state and private tmp', (agent) => {
    const p = policy(agent);
    for (const path of p.allowWrite) {
      const ok =
        path === PLACE.workTree ||
        path === PLACE.gitDir ||
        path === PLACE.tmpDir ||
        path.startsWith(`${PLACE.home}/.`);
      expect(ok, path).toBe(true);
    }
    expect(p.allowWrite).toContain(PLACE.workTree);
    expect(p.allowWrite).toContain(PLACE.tmpDir);
    expect(p.denyWrite).toEqual(
      expect.arrayContaining(['/work/repo/.git/hooks', '/work/repo/.git/config']),
    );
  });

  it.each(AGENTS)('%s reads no credential store, and no other agent’s login', (agent) => {
    const p = policy(agent);
    for (const store of CREDENTIAL_STORES) expect(p.denyRead).toContain(`/home/u/${store}`);
    expect(p.denyRead).toEqual(expect.arrayContaining(['/home/u/.config/mine', '/srv/secrets']));
    // Its own state is writable and readable; the others' are unreadable.
    for (const own of p.allowWrite) expect(p.denyRead).not.toContain(own);
    const others = AGENTS.filter((a) => a !== agent && a !== 'command');
    const otherState: Record<string, string> = {
      claude: '/home/u/.claude',
      codex: '/home/u/.codex',
      gemini: '/home/u/.gemini',
      opencode: '/home/u/.local/share/opencode',
    };
    for (const other of others) expect(p.denyRead).toContain(otherState[other]);
  });

  it('a worktree run writes its own git dir and the shared one, hooks and config still read-only', () => {
    const p = sandboxPolicy({
      agent: 'claude',
      place: { ...PLACE, gitDir: '/work/repo/.git/worktrees/w', workTree: '/work/repo.ralph/w' },
      env: {},
      allowHosts: [],
      extraDenyRead: [],
    });
    expect(p.allowWrite).toEqual(
      expect.arrayContaining([
        '/work/repo.ralph/w',
        '/work/repo/.git/worktrees/w',
        '/work/repo/.git',
      ]),
    );
    expect(p.denyWrite).toEqual(
      expect.arrayContaining([
        '/work/repo/.git/hooks',
        '/work/repo/.git/config',
        '/work/repo/.git/ralphtool',
      ]),
    );
  });

  it('moved state folders follow their variables', () => {
    expect(policy('claude', { CLAUDE_CONFIG_DIR: '/cfg/claude' }).allowWrite).toContain(
      '/cfg/claude',
    );
    expect(policy('codex', { CODEX_HOME: '/cfg/codex' }).allowWrite).toContain('/cfg/codex');
    expect(policy('opencode', { XDG_DATA_HOME: '/xdg/data' }).allowWrite).toContain(
      '/xdg/data/opencode',
    );
    // Another agent's moved state is unreadable.
    expect(policy('command', { CODEX_HOME: '/cfg/codex' }).denyRead).toContain('/cfg/codex');
  });
});

describe('the hosts an agent may reach', () => {
  it.each(AGENTS)('%s: its vendor’s hosts and --allow-host, nothing else', (agent) => {
    expect(allowedHosts(agent, {}, ['registry.npmjs.org'])).toEqual([
      ...AGENT_HOSTS[agent],
      'registry.npmjs.org',
    ]);
  });

  it('a base URL pointing elsewhere adds its host and port', () => {
    expect(
      allowedHosts('claude', { ANTHROPIC_BASE_URL: 'http://127.0.0.1:41234/v1' }, []),
    ).toContain('127.0.0.1:41234');
    expect(allowedHosts('codex', { OPENAI_BASE_URL: 'https://gw.example.com' }, [])).toContain(
      'gw.example.com',
    );
    // Another agent's variable opens nothing.
    expect(allowedHosts('command', { ANTHROPIC_BASE_URL: 'http://127.0.0.1:1' }, [])).toEqual([]);
    expect(allowedHosts('claude', { ANTHROPIC_BASE_URL: 'not a url' }, [])).toEqual([
      ...AGENT_HOSTS.claude,
    ]);
  });

  it.each([
    ['registry.npmjs.org', true],
    ['*.example.com', true],
    ['127.0.0.1:8080', true],
    ['[::1]:8080', true],
    ['localhost', true],
    ['http://example.com', false],
    ['example.com/path', false],
    ['example.com:0', false],
    ['example.com:99999', false],
    ['*', false],
    ['', false],
    ['a b', false],
  ])('--allow-host %j is %s', (value, ok) => {
    expect(allowHostProblem(value) === null).toBe(ok);
  });
});

describe('the command run inside the sandbox', () => {
  it('gives back every word exactly, whatever it holds (a shell reads it)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ minLength: 0, maxLength: 12 }).filter((s) => !s.includes('\0')),
          { minLength: 1, maxLength: 5 },
        ),
        (words) => {
          const inner = innerCommand('/', '/tmp', ['printf', '%s\\0', ...words]);
          const out = execFileSync('/bin/bash', ['-c', inner], { encoding: 'utf8' });
          expect(out.split('\0').slice(0, -1)).toEqual(words);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('with an end mark, gives back every word and the agent’s exit status, then tries the mark', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ralphtool-inner-'));
    try {
      fc.assert(
        fc.property(
          fc.array(
            fc.string({ minLength: 0, maxLength: 12 }).filter((s) => !s.includes('\0')),
            { minLength: 1, maxLength: 4 },
          ),
          fc.integer({ min: 0, max: 255 }),
          (words, status) => {
            const mark = path.join(dir, 'end mark');
            rmSync(mark, { force: true });
            // The agent sees no mark yet (it is tried once the agent ended), prints its words
            // and exits with its status; the command ends with that status, the mark tried.
            const agent = `test ! -e "$1" || exit 99; shift; printf '%s\\0' "$@"; exit ${String(status)}`;
            const inner = innerCommand(
              '/',
              '/tmp',
              ['sh', '-c', agent, 'sh', mark, ...words],
              mark,
            );
            const run = spawnSync('/bin/bash', ['-c', inner], { encoding: 'utf8' });
            expect(run.status).toBe(status);
            expect(run.stdout.split('\0').slice(0, -1)).toEqual(words);
            expect(existsSync(mark)).toBe(true);
          },
        ),
        { numRuns: 30 },
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('with an end mark, tries it even when the work tree is not there, and says nothing of it', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ralphtool-inner-'));
    try {
      const mark = path.join(dir, 'nowhere', 'mark');
      const run = spawnSync(
        '/bin/bash',
        ['-c', innerCommand(path.join(dir, 'gone'), '/tmp', ['true'], mark)],
        {
          encoding: 'utf8',
        },
      );
      expect(run.status).not.toBe(0);
      expect(run.stderr).not.toContain('mark');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('goes to the work tree, exports the private TMPDIR and clears NO_PROXY', () => {
    const inner = innerCommand("/work/it's here", '/tmp/t 1', ['agent']);
    expect(inner).toBe(
      `cd '/work/it'\\''s here' && export TMPDIR='/tmp/t 1' NO_PROXY= no_proxy= && exec agent`,
    );
  });
});

describe('what the runtime returned', () => {
  const ARGS_FILE = `/bin/sh -c 'exec 9<"$1" && shift && exec "$@"' srt-args /proc/4242/fd/23`;
  it.each([
    ['bwrap --new-session --unshare-net --ro-bind / / -- bash -c x', null],
    ['true', 'bwrap'],
    ['bwrap --ro-bind / / -- bash -c x', 'network'],
    [' bwrap --unshare-net -- x', 'bwrap'],
    ['bwrapper --unshare-net x', 'bwrap'],
    ['bwrap --ro-bind / / -- echo --unshare-net-no', 'network'],
    // A policy too long for one argument: the runtime's shell opens the file of mount words.
    [`${ARGS_FILE} bwrap --new-session --unshare-net --args 9 --ro-bind / / -- bash -c x`, null],
    [`${ARGS_FILE} bwrap --new-session --args 9 --ro-bind / / -- bash -c x`, 'network'],
    [`${ARGS_FILE} bwrap --new-session --unshare-net --ro-bind / / -- bash -c x`, 'bwrap'],
    [`${ARGS_FILE} bwrapper --unshare-net --args 9 -- x`, 'bwrap'],
    [`${ARGS_FILE.replace('exec "$@"', 'eval "$@"')} bwrap --unshare-net --args 9 -- x`, 'bwrap'],
    [`${ARGS_FILE.replace('/proc/4242', '/tmp/x')} bwrap --unshare-net --args 9 -- x`, 'bwrap'],
    [`/bin/bash${ARGS_FILE.slice(7)} bwrap --unshare-net --args 9 -- x`, 'bwrap'],
  ])('%j is refused for %s', (wrapped, why) => {
    const reason = uncontainedReason(wrapped);
    if (why === null) expect(reason).toBeNull();
    else expect(reason).toContain(why);
  });
});

describe('the API servers an agent’s own config names (found by running each agent sandboxed)', () => {
  it('reads base_url (Codex config.toml) and baseURL (OpenCode opencode.json), http(s) only', () => {
    const toml = [
      'model_provider = "scripted"',
      '[model_providers.scripted]',
      'base_url = "http://127.0.0.1:8080/v1"',
      "[model_providers.other]\nbase_url = 'https://llm.example.com/v1'",
      'base_url = "file:///etc/passwd"',
    ].join('\n');
    expect(configuredHosts(toml)).toEqual(['127.0.0.1:8080', 'llm.example.com']);
    const json = JSON.stringify({ provider: { s: { options: { baseURL: 'http://[::1]:9/v1' } } } });
    expect(configuredHosts(json)).toEqual(['[::1]:9']);
    expect(configuredHosts('no servers here')).toEqual([]);
  });

  it('has those files read-only inside, so an agent cannot allow itself a host', () => {
    for (const agent of AGENTS) {
      const files = agentConfigFiles(agent, PLACE.home, { CODEX_HOME: '/c' });
      for (const file of files)
        expect(policy(agent, { CODEX_HOME: '/c' }).denyWrite).toContain(file);
    }
    expect(agentConfigFiles('codex', PLACE.home, { CODEX_HOME: '/c' })).toEqual(['/c/config.toml']);
    expect(agentConfigFiles('opencode', PLACE.home, {})).toContain(
      '/home/u/.config/opencode/opencode.json',
    );
    expect(agentConfigFiles('claude', PLACE.home, {})).toEqual([]);
  });

  it('makes the state folders (not the state files) before the agent starts', () => {
    expect(agentStateFolders('claude', PLACE.home, {})).toEqual(['/home/u/.claude']);
    expect(agentStateFolders('opencode', PLACE.home, { XDG_DATA_HOME: '/d' })).toContain(
      '/d/opencode',
    );
  });
});
