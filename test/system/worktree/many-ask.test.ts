import { afterEach, describe, expect, it } from 'vitest';
import { CLI_PATH } from '../../support/cli.js';
import { fakeAgentFlags } from '../../support/fake-agent.js';
import { TmuxSession, tmuxAvailable } from '../../support/tmux.js';
import { succeed } from '../../run/helpers.js';
import { ManyFixture } from './many-fixture.js';

// `--on-complete ask` with several runs on a terminal: the merge check first, then one question
// per change, one after another (docs/contract.md, "Several changes at once").

let fixture: ManyFixture | undefined;
let session: TmuxSession | undefined;
afterEach(() => {
  session?.kill();
  session = undefined;
  fixture?.remove();
  fixture = undefined;
});

describe.skipIf(!tmuxAvailable())('several runs, --on-complete ask on a terminal', () => {
  it('shows the merge check, then asks each change in turn', async () => {
    fixture = new ManyFixture({ alpha: 1, beta: 1 }).scenarios({
      alpha: { '1-1': succeed('src/alpha.txt', 'a\n') },
      beta: { '1-1': succeed('src/beta.txt', 'b\n') },
    });
    const f = fixture;
    const env: Record<string, string> = { NO_COLOR: '1' };
    for (const [key, value] of Object.entries(f.env())) if (value !== undefined) env[key] = value;
    session = TmuxSession.start(
      `ralphtool-many-ask-${process.pid}`,
      [
        process.execPath,
        CLI_PATH,
        'run',
        'alpha',
        'beta',
        '--on-complete',
        'ask',
        ...fakeAgentFlags(),
      ],
      { cwd: f.dir, env, width: 160, height: 50 },
    );
    const s = session;
    const first = await s.waitFor(
      /stay on ralph\/(alpha|beta)[^]*Cleanup or keep\? \[C\/k\/l\]/,
      120_000,
    );
    expect(s.scrollback()).toContain('merge check against main: alpha, beta apply cleanly');
    const firstAsked = /stay on ralph\/(alpha|beta)/.exec(first)?.[1] ?? '';
    expect(first).toContain(`[${firstAsked}]`);
    const other = firstAsked === 'alpha' ? 'beta' : 'alpha';
    // No second question before the first is answered: the runs' choices come one at a time.
    expect(first).not.toContain(`stay on ralph/${other}`);
    s.keys('k', 'Enter');
    await s.waitFor((screen) => screen.includes(`stay on ralph/${other}`), 60_000);
    s.keys('k', 'Enter');
    expect(await s.waitForExit(60_000)).toBe(0);
    for (const change of ['alpha', 'beta']) {
      expect(f.runState(change)).toMatchObject({ choice: 'keep', outcome: 'complete' });
    }
  }, 240_000);
});
