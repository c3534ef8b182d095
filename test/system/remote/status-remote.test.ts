import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LiveCli } from '../../support/live-cli.js';
import { fakeAgentFlags } from '../../support/fake-agent.js';
import { stories, succeed } from '../../run/helpers.js';
import { RemoteWorld } from './world.js';

const CHANGE = 'listed';
let world: RemoteWorld | undefined;
const lives: LiveCli[] = [];
afterEach(async () => {
  for (const live of lives.splice(0)) await live.kill9().catch(() => undefined);
  world?.remove();
  world = undefined;
});

describe('status --remote', { timeout: 240_000 }, () => {
  it('lists the runs recorded on the remote, finished and running, with who holds each', async () => {
    world = new RemoteWorld(CHANGE, stories(2));
    const w = world;
    const b = w.clone('b');
    const empty = await w.on(b, ['status', '--remote', 'origin']);
    expect(empty.exitCode, empty.stderr).toBe(0);
    expect(empty.stdout).toContain('no runs recorded on origin');

    // A finished run (machine A), then a running one held in story 1.
    w.scenario({ '1-1': succeed('src/one.txt', 'one\n'), '2-1': succeed('src/two.txt', 'two\n') });
    expect((await w.run(['--push', 'origin', '--on-complete', 'keep'])).exitCode).toBe(0);
    w.git('switch', '-q', 'main');
    const other = 'listed-too';
    const started = path.join(w.scratch, 'started');
    const go = path.join(w.scratch, 'go');
    // The second change lives on machine B (its own clone with the change committed there).
    b.git('switch', '-q', '-c', 'more');
    // Three stories, one started: the count is of tasks.md's stories, not of those begun.
    const tasks = `## 1. First\n\n- [ ] 1.1 do it\n\n## 2. Second\n\n- [ ] 2.1 then this\n\n## 3. Third\n\n- [ ] 3.1 and this\n`;
    const dir = path.join(b.dir, 'openspec', 'changes', other);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'proposal.md'), `# ${other}\n`);
    writeFileSync(path.join(dir, 'tasks.md'), tasks);
    b.git('add', '-A');
    b.git('commit', '-q', '-m', 'another change');
    w.scenario({
      '1-1': [{ write: started, content: '' }, { waitFor: go }, ...succeed('src/x.txt', 'x\n')],
      '2-1': succeed('src/y.txt', 'y\n'),
      '3-1': succeed('src/z.txt', 'z\n'),
    });
    const live = new LiveCli(
      ['run', other, ...fakeAgentFlags(), '--push', 'origin', '--on-complete', 'keep', '--json'],
      b.dir,
      w.env(),
    );
    lives.push(live);
    await live.waitUntil(() => existsSync(started));
    await live.waitFor((e) => e.type === 'remote.pushed');

    const listed = await w.on(w.clone('c'), ['status', '--remote', 'origin']);
    expect(listed.exitCode, listed.stderr).toBe(0);
    const lines = listed.stdout.split('\n');
    expect(lines.find((l) => l.startsWith(CHANGE))).toMatch(
      /finished \(keep\)\s+2\/2 stories.*unclaimed/,
    );
    expect(lines.find((l) => l.startsWith(other))).toMatch(
      new RegExp(`active\\s+0/3 stories.*claimed by .+ \\(pid ${live.pid}\\), heartbeat`),
    );
    const json = await w.on(b, ['status', '--remote', 'origin', '--json']);
    const parsed = JSON.parse(json.stdout) as {
      runs: { change: string; claim: { info: { pid: number } } | null }[];
    };
    expect(parsed.runs.map((r) => [r.change, r.claim?.info.pid ?? null])).toEqual([
      [CHANGE, null],
      [other, live.pid],
    ]);
    writeFileSync(go, '');
    expect((await live.exited).code, live.stderr).toBe(0);
  });

  it('an unreachable remote: exit 1, one line', async () => {
    world = new RemoteWorld(CHANGE, stories(1));
    const result = await world.on(world.a, [
      'status',
      '--remote',
      path.join(world.scratch, 'nowhere.git'),
    ]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('cannot reach the remote');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });
});
