import { afterEach, describe, expect, it } from 'vitest';
import { stories, succeed } from '../run/helpers.js';
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
    expect(events.filter((e) => e.type === 'remote.pushed').length).toBeGreaterThan(3);
  });
});
