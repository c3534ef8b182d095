import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeAgentFlags, type Scenario } from '../../support/fake-agent.js';
import { LiveCli } from '../../support/live-cli.js';
import { tasksMarkdown } from '../../support/temp-repo.js';
import { stories, succeed } from '../../run/helpers.js';
import { RemoteWorld, type Machine } from './world.js';

// The usage governor across machines (docs/contract.md, "One account, many runs"): two clones of
// one bare remote, each with a state folder of its own (two machines), runs with `--push origin`
// on two changes. The account's entry travels as `refs/ralphtool/accounts/<key>`.

let world: RemoteWorld | undefined;
const states: string[] = [];
afterEach(() => {
  world?.remove();
  world = undefined;
  for (const dir of states.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function machineState(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ralph-machine-state-'));
  states.push(dir);
  return dir;
}

function spawnOn(w: RemoteWorld, machine: Machine, change: string, state: string): LiveCli {
  const args = ['run', change, ...fakeAgentFlags(), '--push', 'origin', '--json'];
  return new LiveCli([...args, '--on-complete', 'keep'], machine.dir, {
    ...w.env(),
    XDG_STATE_HOME: state,
  });
}

describe('the account entry through the remote', { timeout: 240_000 }, () => {
  it("a limit one machine hits pauses another machine's run before its next attempt; both finish", async () => {
    world = new RemoteWorld('gov-one', stories(1), {
      'openspec/changes/gov-two/proposal.md': '# gov-two\n\nWhy: a test.\n',
      'openspec/changes/gov-two/tasks.md': tasksMarkdown(stories(1)),
    });
    // One scenario per change (test/fixtures/agents/fake-agent.mjs).
    const perChange = {
      changes: {
        'gov-one': {
          '1-1#1': [
            { write: 'src/partial.txt', content: 'half\n' },
            { resetsIn: 6_000 },
            { stderr: 'usage limit reached' },
            { exit: 75 },
          ],
          '1-1': succeed('src/one.txt', 'one\n'),
        },
        'gov-two': { '1-1': succeed('src/two.txt', 'two\n') },
      },
    };
    const w = world.scenario(perChange as unknown as Scenario);
    const b = w.clone('b');
    const first = spawnOn(w, w.a, 'gov-one', machineState());
    await first.waitFor((e) => e.type === 'agent.limited');
    await first.waitUntil(() => [...w.remoteRefs('refs/ralphtool/accounts/').keys()].length > 0);
    const refs = [...w.remoteRefs('refs/ralphtool/accounts/').keys()];
    expect(refs).toEqual([
      expect.stringMatching(/^refs\/ralphtool\/accounts\/command-[0-9a-f]{12}$/),
    ]);
    const entry = JSON.parse(w.remote('show', `${refs[0] ?? ''}:account.json`)) as {
      limit: { by: { change: string } };
    };
    expect(entry.limit.by.change).toBe('gov-one');

    // Machine B has a state folder of its own: it learns of the limit from the remote only.
    const second = spawnOn(w, b, 'gov-two', machineState());
    const shared = await second.waitFor((e) => e.type === 'agent.limited');
    expect(shared).toMatchObject({ storyId: '1', attempt: 1, kind: 'usage', source: 'account' });
    expect(String(shared.message)).toContain(`the run of gov-one (pid ${first.pid})`);

    const [endA, endB] = await Promise.all([first.exited, second.exited]);
    expect(endA.code, first.stderr).toBe(0);
    expect(endB.code, second.stderr).toBe(0);
    const order = ['run.started', 'agent.limited', 'limit.resumed', 'story.started'];
    const bTypes = second.types().filter((t) => order.includes(t));
    expect(bTypes.slice(0, 4)).toEqual([
      'run.started',
      'agent.limited',
      'limit.resumed',
      'story.started',
    ]);
    expect(second.events.find((e) => e.type === 'story.completed')).toMatchObject({ attempts: 1 });
  });
});
