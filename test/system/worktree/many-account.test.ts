import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { claudeUsageLimit } from '../../support/fallback-world.js';
import { LiveCli } from '../../support/live-cli.js';
import { succeed } from '../../run/helpers.js';
import { ManyFixture } from './many-fixture.js';

// Issue 30's "a limit hit by one of two parallel runs pauses both, then both finish", inside ONE
// process (`run alpha beta --parallel 2`, docs/contract.md "One account, many runs"): the agent is
// `claude`, a scripted executable printing Claude Code's stream (its limit the recorded 429
// `rate_limit_event` + error `result`), so the limit goes through the usage governor's account
// file as well as the pause the runs of one process share.

let fixture: ManyFixture | undefined;
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
});

describe('one account, two runs in one process', () => {
  it('a limit one run hits pauses the next attempt of the other run before it starts (nothing charged); both finish', async () => {
    fixture = new ManyFixture({ alpha: 2, beta: 2 });
    const f = fixture;
    const betaAtWork = path.join(f.scratch, 'beta-is-at-work');
    const gate = path.join(f.scratch, 'beta-may-finish-story-1');
    f.scenarios({
      alpha: {
        // Alpha meets the account's limit while beta's first attempt runs.
        '1-1#1': [{ waitFor: betaAtWork }, ...claudeUsageLimit(new Date(Date.now() + 3_000))],
        '1-1': succeed('src/alpha1.txt', 'a1\n'),
        '2-1': succeed('src/alpha2.txt', 'a2\n'),
      },
      beta: {
        // Beta's running attempt goes on; its next one must not start until the reset.
        '1-1': [{ say: 'beta at work' }, { waitFor: gate }, ...succeed('src/beta1.txt', 'b1\n')],
        '2-1': succeed('src/beta2.txt', 'b2\n'),
      },
    });
    const env = f.claudeEnv();
    const args = ['run', 'alpha', 'beta', '--parallel', '2', '--agent', 'claude', '--json'];
    const live = new LiveCli([...args, '--on-complete', 'keep'], f.dir, env);
    await live.waitFor(
      (e) => e.type === 'agent.message' && e.text === 'beta at work' && e.change === 'beta',
    );
    writeFileSync(betaAtWork, '');
    const limited = await live.waitFor((e) => e.type === 'agent.limited' && e.change === 'alpha');
    expect(limited).toMatchObject({ storyId: '1', kind: 'usage' });
    // The account's file holds alpha's limit, for every run of the user.
    const folder = path.join(process.env.XDG_STATE_HOME ?? '', 'ralphtool', 'accounts');
    const [file] = readdirSync(folder).filter((name) => name.endsWith('.json'));
    expect(JSON.parse(readFileSync(path.join(folder, file ?? ''), 'utf8'))).toMatchObject({
      agent: 'claude',
      limit: { kind: 'usage', by: { change: 'alpha', pid: live.pid } },
    });
    writeFileSync(gate, '');
    const shared = await live.waitFor((e) => e.type === 'agent.limited' && e.change === 'beta');
    expect(shared).toMatchObject({ storyId: '2', attempt: 1, kind: 'usage' });
    expect(String(shared.message)).toContain('alpha');

    const exit = await live.exited;
    expect(exit.code, live.stderr).toBe(0);
    // Beta's second story started once, after alpha's wait: no attempt of it met the limit.
    expect(Object.fromEntries(f.starts())).toEqual({
      'alpha.1-1': 2,
      'alpha.2-1': 1,
      'beta.1-1': 1,
      'beta.2-1': 1,
    });
    const seen = live.events.map((e) => `${e.type}:${String(e.change)}:${String(e.storyId)}`);
    const alphaResumed = seen.indexOf('limit.resumed:alpha:1');
    expect(alphaResumed).toBeGreaterThan(-1);
    expect(seen.indexOf('story.started:beta:2')).toBeGreaterThan(alphaResumed);
    for (const change of ['alpha', 'beta']) {
      const done = live.events.filter((e) => e.type === 'story.completed' && e.change === change);
      expect(done.map((e) => [e.storyId, e.attempts])).toEqual([
        ['1', 1],
        ['2', 1],
      ]);
      expect(f.subjects(`main..ralph/${change}`)).toEqual([
        'initial state',
        'checkpoint: 1',
        'checkpoint: 2',
      ]);
    }
  }, 240_000);
});
