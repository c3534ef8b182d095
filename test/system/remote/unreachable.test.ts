import { renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { LiveCli } from '../../support/live-cli.js';
import { fakeAgentFlags } from '../../support/fake-agent.js';
import { cleanGitEnv } from '../../support/temp-repo.js';
import { stories, succeed } from '../../run/helpers.js';
import { RemoteWorld } from './world.js';

// The remote goes away in the middle of a run (a path that disappears, as a network that drops):
// the run never stops for it, says so, and the remote catches up when it is back.

const CHANGE = 'offline';
let world: RemoteWorld | undefined;
const lives: LiveCli[] = [];
afterEach(async () => {
  for (const live of lives.splice(0)) await live.kill9().catch(() => undefined);
  world?.remove();
  world = undefined;
});

function heldScenario(w: RemoteWorld): void {
  w.scenario({
    '1-1': succeed('src/one.txt', 'one\n'),
    '2-1': [{ waitFor: path.join(w.scratch, 'go2') }, ...succeed('src/two.txt', 'two\n')],
    '3-1': [{ waitFor: path.join(w.scratch, 'go3') }, ...succeed('src/three.txt', 'three\n')],
  });
}

function start(w: RemoteWorld): LiveCli {
  const live = new LiveCli(
    ['run', CHANGE, ...fakeAgentFlags(), '--push', 'origin', '--json', '--on-complete', 'keep'],
    w.dir,
    w.env(),
  );
  lives.push(live);
  return live;
}

describe('the remote unreachable mid-run', { timeout: 240_000 }, () => {
  it('the run goes on, the failures are reported with growing pauses, and it catches up', async () => {
    world = new RemoteWorld(CHANGE, stories(3));
    const w = world;
    heldScenario(w);
    const away = `${w.origin}.away`;
    const live = start(w);
    await live.waitFor((e) => e.type === 'story.started' && e.storyId === '2');
    await live.waitFor((e) => e.type === 'remote.pushed');
    renameSync(w.origin, away);
    writeFileSync(path.join(w.scratch, 'go2'), '');
    await live.waitFor((e) => e.type === 'checkpoint.created' && e.storyId === '2');
    const second = await live.waitFor(
      (e) => e.type === 'remote.push-failed' && (e.failures as number) >= 2,
    );
    expect(second.retryInMs).toBe(4_000);
    renameSync(away, w.origin);
    writeFileSync(path.join(w.scratch, 'go3'), '');
    const ended = await live.exited;
    expect(ended.code, live.stderr).toBe(0);

    const caught = live.events.find((e) => e.type === 'remote.pushed' && 'caughtUpAfter' in e);
    expect(caught?.caughtUpAfter).toBeGreaterThanOrEqual(2);
    expect(live.types().at(-1)).toBe('run.finished');
    const refs = w.remoteRefs();
    expect(refs.get(`refs/heads/ralph/${CHANGE}`)).toBe(w.sha(`ralph/${CHANGE}`));
    expect(
      JSON.parse(w.remote('show', `refs/ralphtool/${CHANGE}/record:state.json`)),
    ).toMatchObject({
      status: 'finished',
    });
    expect(w.subjects(`main..ralph/${CHANGE}`)).toEqual([
      'initial state',
      'checkpoint: 1',
      'checkpoint: 2',
      'checkpoint: 3',
    ]);
  });

  it('gone at the end: the usual exit code, and the warning gives the push that sends it by hand', async () => {
    world = new RemoteWorld(CHANGE, stories(3));
    const w = world;
    heldScenario(w);
    const away = `${w.origin}.away`;
    const live = start(w);
    await live.waitFor((e) => e.type === 'story.started' && e.storyId === '2');
    await live.waitFor((e) => e.type === 'remote.pushed');
    renameSync(w.origin, away);
    writeFileSync(path.join(w.scratch, 'go2'), '');
    writeFileSync(path.join(w.scratch, 'go3'), '');
    const ended = await live.exited;
    expect(ended.code, live.stderr).toBe(0);
    const last = live.events.filter((e) => e.type === 'remote.push-failed').at(-1);
    expect(last?.retryInMs).toBeNull();
    expect(live.stderr).toContain('could not release the claim');

    renameSync(away, w.origin);
    // The command the plain warning gives (the same refs the run pushes).
    execFileSync(
      'git',
      [
        'push',
        'origin',
        'refs/ralphtool/*:refs/ralphtool/*',
        'refs/heads/ralph/*:refs/heads/ralph/*',
      ],
      { cwd: w.dir, env: cleanGitEnv(), stdio: 'ignore' },
    );
    expect(w.remoteRefs().get(`refs/heads/ralph/${CHANGE}`)).toBe(w.sha(`ralph/${CHANGE}`));
    expect(
      JSON.parse(w.remote('show', `refs/ralphtool/${CHANGE}/record:state.json`)),
    ).toMatchObject({
      status: 'finished',
    });
  });
});
