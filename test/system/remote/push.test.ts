import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../support/cli.js';
import { fakeAgentFlags } from '../../support/fake-agent.js';
import { stories, succeed } from '../../run/helpers.js';
import { RemoteWorld } from './world.js';

const CHANGE = 'add-remote';
let world: RemoteWorld | undefined;
afterEach(() => {
  world?.remove();
  world = undefined;
});

describe('run --push origin', { timeout: 240_000 }, () => {
  it('puts the branch, the saved attempts and the record on the remote, and releases the claim', async () => {
    world = new RemoteWorld(CHANGE, stories(2));
    const w = world.scenario({
      '1-1': [{ write: 'src/bad.txt', content: 'bad\n' }, { signal: 'FAILED: not yet' }],
      '1-2': succeed('src/one.txt', 'one\n'),
      '2-1': succeed('src/two.txt', 'two\n'),
    });
    const result = await w.run(['--push', 'origin', '--on-complete', 'keep', '--json']);
    expect(result.exitCode, result.stderr).toBe(0);

    const refs = w.remoteRefs();
    expect(refs.get(`refs/heads/ralph/${CHANGE}`)).toBe(w.sha(`ralph/${CHANGE}`));
    expect(refs.get(`refs/ralphtool/${CHANGE}/attempts/1-1`)).toBe(
      w.sha(`refs/ralphtool/${CHANGE}/attempts/1-1`),
    );
    expect(refs.get(`refs/ralphtool/${CHANGE}/record`)).toBe(
      w.sha(`refs/ralphtool/${CHANGE}/record`),
    );
    expect(refs.has(`refs/ralphtool/${CHANGE}/claim`)).toBe(false);
    const state = JSON.parse(w.remote('show', `refs/ralphtool/${CHANGE}/record:state.json`)) as {
      status: string;
      choice: string;
    };
    expect(state).toMatchObject({ status: 'finished', choice: 'keep' });
    const files = w.remote('ls-tree', '-r', '--name-only', `refs/ralphtool/${CHANGE}/record`);
    expect(files.split('\n').filter((l) => l !== '')).toEqual([
      'learnings.md',
      'prompts/1-1.md',
      'prompts/1-2.md',
      'prompts/2-1.md',
      'record.json',
      'state.json',
    ]);
    // run.finished stays the last event, after the last push.
    const events = result.stdout
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { type: string });
    expect(events.at(-1)?.type).toBe('run.finished');
    // Steps seconds apart go together (a push starts 2 s after the last one's start at the
    // soonest): a run this quick pushes at its start and at its end at least, never once per
    // step — fewer pushes than the steps that asked for one.
    const pushes = events.filter((e) => e.type === 'remote.pushed').length;
    const steps = events.filter((e) =>
      ['run.started', 'story.started', 'checkpoint.created', 'checkpoint.reverted'].includes(
        e.type,
      ),
    ).length;
    expect(pushes).toBeGreaterThanOrEqual(2);
    expect(pushes).toBeLessThanOrEqual(steps);
  });

  it('a run stopped by its time limit releases the claim; a local finish ends it on the remote too', async () => {
    world = new RemoteWorld(CHANGE, stories(2));
    const w = world.scenario({
      '1-1': [{ sleep: 1_500 }, ...succeed('src/one.txt', 'one\n')],
      '2-1': succeed('src/two.txt', 'two\n'),
    });
    const cut = await w.run(['--push', 'origin', '--max-duration', '1s', '--on-complete', 'keep']);
    expect(cut.exitCode, cut.stderr).toBe(5);
    expect(w.remoteRefs().has(`refs/ralphtool/${CHANGE}/claim`)).toBe(false);
    const recorded = (): Record<string, unknown> =>
      JSON.parse(w.remote('show', `refs/ralphtool/${CHANGE}/record:state.json`)) as Record<
        string,
        unknown
      >;
    expect(recorded()).toMatchObject({ status: 'active', remote: { push: 'origin' } });

    const finished = await w.on(w.a, ['finish', CHANGE, '--keep']);
    expect(finished.exitCode, finished.stderr).toBe(0);
    expect(recorded()).toMatchObject({ status: 'finished', choice: 'keep' });
    expect(w.remoteRefs().has(`refs/ralphtool/${CHANGE}/claim`)).toBe(false);
  });
});

describe('several runs with --push', { timeout: 240_000 }, () => {
  it('each pushes its own refs to the same remote at the same time', async () => {
    world = new RemoteWorld(CHANGE, stories(2));
    const w = world;
    const other = 'add-remote-too';
    w.repo.write(`openspec/changes/${other}/proposal.md`, `# ${other}\n`);
    w.repo.write(
      `openspec/changes/${other}/tasks.md`,
      '## 1. One\n\n- [ ] 1.1 do it\n\n## 2. Two\n\n- [ ] 2.1 do it\n',
    );
    w.git('add', '-A');
    w.git('commit', '-q', '-m', 'a second change');
    // One scenario per change (the fake agent's `changes` form).
    writeFileSync(
      w.scenarioFile,
      JSON.stringify({
        changes: {
          [CHANGE]: { '1-1': succeed('src/a1.txt', 'a1\n'), '2-1': succeed('src/a2.txt', 'a2\n') },
          [other]: { '1-1': succeed('src/b1.txt', 'b1\n'), '2-1': succeed('src/b2.txt', 'b2\n') },
        },
      }),
    );
    const result = await runCli(
      [
        'run',
        CHANGE,
        other,
        '--parallel',
        '2',
        '--push',
        'origin',
        '--on-complete',
        'keep',
        ...fakeAgentFlags(),
      ],
      { cwd: w.dir, env: w.env(), timeoutMs: 240_000 },
    );
    expect(result.exitCode, result.stderr).toBe(0);
    const refs = w.remoteRefs();
    for (const change of [CHANGE, other]) {
      expect(refs.get(`refs/heads/ralph/${change}`)).toBe(w.sha(`ralph/${change}`));
      expect(
        JSON.parse(w.remote('show', `refs/ralphtool/${change}/record:state.json`)),
      ).toMatchObject({ status: 'finished', change });
      expect(refs.has(`refs/ralphtool/${change}/claim`)).toBe(false);
    }
  });
});
