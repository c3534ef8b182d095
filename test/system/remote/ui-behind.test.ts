import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_PATH } from '../../support/cli.js';
import { fakeAgentFlags } from '../../support/fake-agent.js';
import { TmuxSession, tmuxAvailable } from '../../support/tmux.js';
import { stories } from '../../run/helpers.js';
import { crashOnA, RemoteWorld } from './world.js';

// The UI's resume of a copy behind the remote is refused as the shell's is: said on the
// screen with the command that follows the remote, nothing redone, nothing changed.

const CHANGE = 'truth';
let world: RemoteWorld | undefined;
let session: TmuxSession | undefined;
afterEach(() => {
  session?.kill();
  world?.remove();
  world = undefined;
});

/** How many times the fake agent started, per attempt, on every machine (a shared log). */
function agentRuns(w: RemoteWorld): Record<string, string> {
  const runs = readdirSync(w.logDir).filter((name) => name.startsWith('runs-'));
  return Object.fromEntries(
    runs.map((name) => [name, readFileSync(path.join(w.logDir, name), 'utf8')]),
  );
}

describe.skipIf(!tmuxAvailable())('the UI on a machine whose copy is behind the remote', () => {
  it(
    'r on the interrupted run says who went on and how to follow; nothing changes',
    { timeout: 240_000 },
    async () => {
      world = new RemoteWorld(CHANGE, stories(3));
      const w = world;
      await crashOnA(w, CHANGE);
      const b = w.clone('b');
      const onB = await w.on(b, ['resume', CHANGE, '--from', 'origin', '--on-complete', 'keep']);
      expect(onB.exitCode, onB.stderr).toBe(0);
      const agentBefore = agentRuns(w);
      const refs = w.git('for-each-ref', '--format=%(refname) %(objectname)', 'refs/heads');
      const remote = w.remoteRefs();

      const env = Object.fromEntries(
        Object.entries({ ...w.env(), NO_COLOR: '1' }).filter(
          (entry): entry is [string, string] => entry[1] !== undefined,
        ),
      );
      session = TmuxSession.start(
        `ralphtool-behind-${process.pid}`,
        [process.execPath, CLI_PATH, ...fakeAgentFlags()],
        { cwd: w.dir, env, width: 200 },
      );
      const s = session;
      await s.waitForText(`${CHANGE} [interrupted]`);
      s.keys('r');
      await s.waitForText('went on without this machine and ended there');
      await s.waitForText(`ralphtool finish ${CHANGE} --from origin --keep`);
      s.keys('q');
      await s.waitForExit();
      expect(agentRuns(w)).toEqual(agentBefore);
      expect(w.git('for-each-ref', '--format=%(refname) %(objectname)', 'refs/heads')).toBe(refs);
      expect(w.remoteRefs()).toEqual(remote);
    },
  );
});
