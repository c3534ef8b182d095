import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { printedCommands } from '../../support/printed-command.js';
import { afterEach, describe, expect, it } from 'vitest';
import { ALL_SUCCEED, FaultWorld, type Step } from './support/world.js';

// The agent deletes or rewrites ralphtool's own folder in .git during an attempt: state.json,
// the run folder, all of .git/ralphtool, or garbage in place of state.json. ralphtool holds
// the run's record in memory while it runs, so it writes the record again at its next step:
// no stack trace, the run goes on, and `status` sees it afterwards. And `git gc --prune=now`
// loses nothing: attempt refs and checkpoints are refs.

const CHANGE = 'state-folder';

let world: FaultWorld | undefined;
afterEach(() => {
  world?.remove();
  world = undefined;
});

const RUN_DIR = `.git/ralphtool/${CHANGE}`;

const MISDEEDS: { name: string; steps: Step[] }[] = [
  { name: 'state.json deleted', steps: [{ delete: `${RUN_DIR}/state.json` }] },
  { name: 'the run folder deleted', steps: [{ delete: RUN_DIR }] },
  { name: 'all of .git/ralphtool deleted', steps: [{ delete: '.git/ralphtool' }] },
  {
    name: 'state.json replaced with garbage',
    steps: [{ write: `${RUN_DIR}/state.json`, content: '{ "version": 1, garbage' }],
  },
  {
    name: 'state.json replaced with another valid-looking run',
    steps: [{ write: `${RUN_DIR}/state.json`, content: '{"version":1,"change":"other"}\n' }],
  },
];

describe("an agent that deletes or rewrites ralphtool's state folder", () => {
  for (const ending of ['fails', 'completes'] as const) {
    it.each(MISDEEDS)(
      `$name, then ${ending}: the run carries on and status sees it`,
      async ({ steps }) => {
        world = new FaultWorld(CHANGE, 2);
        const w = world;
        const last: Step[] =
          ending === 'fails'
            ? [{ signal: 'FAILED: oops' }]
            : [{ tick: 'all' }, { signal: 'COMPLETE' }];
        w.scenario({
          '1-1': [{ write: 'src/work.txt', content: 'agent work\n' }, ...steps, ...last],
          ...ALL_SUCCEED,
        });
        const result = await w.loop('run');
        expect(result.stderr).not.toMatch(/\n\s+at /);
        expect(result.exitCode, result.stderr).toBe(0);
        expect(w.state()).toMatchObject({
          change: CHANGE,
          status: 'finished',
          outcome: 'complete',
        });
        expect(w.state().stories['2']).toMatchObject({ completed: true });
        const status = await w.statusJson();
        expect(status.runs).toHaveLength(1);
        expect(status.runs[0]).toMatchObject({ change: CHANGE });
        expect(status.runs[0]?.state).toBe('finished');
        expect(w.subjects(`main..${w.branch}`)).toEqual([
          'initial state',
          'checkpoint: 1',
          'checkpoint: 2',
        ]);
        if (ending === 'fails') {
          expect(w.git('show', `refs/ralphtool/${CHANGE}/attempts/1-1:src/work.txt`)).toBe(
            'agent work\n',
          );
        }
        expect(w.status()).toEqual([]);
        expect(w.userFilesChanged()).toEqual([]);
      },
    );
  }
});

describe('the run folder gone while HEAD is on the run branch', () => {
  it('status says so and the way back to the branch the run started from works as printed', async () => {
    world = new FaultWorld(CHANGE, 2);
    const w = world;
    w.scenario({
      '1-1': [{ write: 'src/one.txt', content: 'one\n' }, { tick: 'all' }, { signal: 'COMPLETE' }],
      '2-*': [{ signal: 'FAILED: no' }],
    });
    expect((await w.loop('run', ['--max-retries', '0'])).exitCode).toBe(3);
    expect(w.currentBranch()).toBe(w.branch);
    rmSync(path.join(w.dir, '.git', 'ralphtool'), { recursive: true, force: true });

    const status = await w.cli(['status']);
    expect(status.exitCode, status.stderr).toBe(0);
    expect(status.stdout).toContain(
      `HEAD is on ${w.branch} but ralphtool has no record of its run`,
    );
    const ways = printedCommands(status.stdout, 'git');
    expect(ways.map((words) => words[0])).toEqual(['switch', 'checkout', 'reset']);
    for (const way of ways) w.git(...way);
    expect(w.currentBranch()).toBe('main');
    expect(w.subjects(`main..${w.branch}`)).toEqual(['initial state', 'checkpoint: 1']);
    expect(w.userFilesChanged()).toEqual([]);
  });
});

describe('an agent that runs `git gc --prune=now`', () => {
  it('the saved attempts and the checkpoints survive, with their content', async () => {
    world = new FaultWorld(CHANGE, 2);
    const w = world;
    w.scenario({
      '1-1': [{ write: 'src/first.txt', content: 'first try\n' }, { signal: 'FAILED: one' }],
      '1-2': [
        { write: 'src/second.txt', content: 'second try\n' },
        { git: ['reflog', 'expire', '--expire=now', '--all'] },
        { git: ['gc', '-q', '--prune=now'] },
        { signal: 'FAILED: two' },
      ],
      '1-3': [
        { git: ['config', 'gc.pruneExpire', 'now'] },
        { git: ['gc', '-q', '--prune=now'] },
        ...(ALL_SUCCEED['*'] ?? []),
      ],
      '2-*': [{ git: ['gc', '-q', '--aggressive', '--prune=now'] }, ...(ALL_SUCCEED['*'] ?? [])],
    });
    const result = await w.loop('run', ['--max-retries', '3']);
    expect(result.exitCode, result.stderr).toBe(0);
    const refs = `refs/ralphtool/${CHANGE}/attempts`;
    expect(w.git('show', `${refs}/1-1:src/first.txt`)).toBe('first try\n');
    expect(w.git('show', `${refs}/1-2:src/second.txt`)).toBe('second try\n');
    expect(w.subjects(`main..${w.branch}`)).toEqual([
      'initial state',
      'checkpoint: 1',
      'checkpoint: 2',
    ]);
    expect(w.git('fsck', '--no-dangling', '--no-progress')).toBe('');
    expect(w.status()).toEqual([]);
    expect(w.userFilesChanged()).toEqual([]);
    expect(existsSync(w.stateFile)).toBe(true);
  });
});
