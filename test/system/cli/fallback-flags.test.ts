import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FallbackWorld } from '../../support/fallback-world.js';

// `--fallback-agent` / `--fallback-model` refused before anything changes (docs/contract.md,
// "Fallback agents"): one line, exit 2 (exit 1 for a missing program, as for `--agent`).

const CHANGE = 'fallback-flags';

let world: FallbackWorld | undefined;
afterEach(() => {
  world?.remove();
  world = undefined;
});

function untouched(w: FallbackWorld): void {
  expect(w.branchExists(`ralph/${CHANGE}`)).toBe(false);
  expect(existsSync(path.join(w.dir, '.git', 'ralphtool'))).toBe(false);
  expect(w.starts('claude')).toEqual([]);
  expect(w.starts('codex')).toEqual([]);
}

describe('--fallback-agent refusals', () => {
  it.each([
    [
      ['--fallback-model', 'gpt-x'],
      '--fallback-model: 1 models for 0 --fallback-agents: each model goes with the fallback agent in the same position',
    ],
    [
      ['--fallback-agent', 'codex', '--fallback-model', 'a', '--fallback-model', 'b'],
      '--fallback-model: 2 models for 1 --fallback-agent: each model goes with the fallback agent in the same position',
    ],
    [
      ['--fallback-agent', 'claude'],
      "--fallback-agent claude is the run's own agent (--agent claude): name another agent",
    ],
    [
      ['--fallback-agent', 'codex', '--fallback-agent', 'codex'],
      '--fallback-agent codex is given twice: name each agent once',
    ],
    [
      ['--fallback-agent', 'command'],
      '--fallback-agent command needs --agent-command "<program> [args]"',
    ],
    [['--fallback-agent', 'gpt'], '--fallback-agent'],
    [['--fallback-agent', 'codex', '--fallback-model', ' '], '--fallback-model: empty name'],
  ])('%j: exit 2, one line, nothing changed', async (flags, message) => {
    world = new FallbackWorld(CHANGE, 1);
    const w = world;
    const result = await w.loopWith('run', flags);
    expect(result.exitCode, result.stderr).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    untouched(w);
  });

  it('--agent-command goes with a command fallback: accepted, its program checked before git is touched (exit 1)', async () => {
    world = new FallbackWorld(CHANGE, 1).agents({ claude: { '1-1': [{ signal: 'COMPLETE' }] } });
    const w = world;
    const result = await w.loopWith('run', [
      '--fallback-agent',
      'command',
      '--agent-command',
      './no-such-agent.sh',
    ]);
    // The command fallback's program is checked before git is touched, like the primary's.
    expect(result.exitCode, result.stderr).toBe(1);
    expect(result.stderr).toContain('the command agent program `./no-such-agent.sh` was not found');
    untouched(w);
  });

  it('a fallback agent whose program is missing is refused before git is touched (exit 1)', async () => {
    world = new FallbackWorld(CHANGE, 1);
    const w = world;
    // codex is on PATH only through the world's bin folder: without it, it is missing.
    const result = await w.ralph(
      [
        'run',
        CHANGE,
        '--agent',
        'claude',
        '--fallback-agent',
        'codex',
        '--json',
        '--on-complete',
        'keep',
      ],
      { PATH: path.dirname(process.execPath) + ':/usr/bin:/bin' },
    );
    expect(result.exitCode, result.stderr).toBe(1);
    expect(result.stderr).toContain('Codex (`codex`) was not found on PATH');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    untouched(w);
  });
});
