import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../support/cli.js';
import { tasksMarkdown } from '../../support/temp-repo.js';
import {
  eventually,
  fakeAgentFlags,
  procStat,
  RunFixture,
  single,
  stories,
  succeed,
} from '../../run/helpers.js';
import type { LiveCli } from '../../support/live-cli.js';
import { killGroup } from '../../support/processes.js';

const CHANGE = 'busy-change';
const OTHER = 'other-change';

let fixture: RunFixture | undefined;
let live: LiveCli | undefined;
let strayGroup: number | null = null;
afterEach(async () => {
  if (live && live.child.exitCode === null && live.child.signalCode === null) {
    live.signal('SIGKILL');
    await live.exited;
  }
  live = undefined;
  killGroup(strayGroup);
  strayGroup = null;
  fixture?.remove();
  fixture = undefined;
});

/** A repository with two changes; story 1 of either hangs until stopped. */
function busyFixture(): RunFixture {
  return new RunFixture(CHANGE, stories(1), {
    [`openspec/changes/${OTHER}/tasks.md`]: tasksMarkdown(stories(1)),
  }).scenario({
    '1-1': [{ say: 'busy' }, { hang: true, withChild: true }],
    '*': succeed('src/x.txt', 'x\n'),
  });
}

/** Starts a run that hangs in story 1 and waits until its agent is running. */
async function startBusyRun(f: RunFixture): Promise<LiveCli> {
  const running = f.spawn(['--json', '--on-complete', 'keep']);
  live = running;
  await running.waitFor((e) => e.type === 'agent.message' && e.text === 'busy');
  expect(
    await eventually(() => {
      try {
        return f.childPid('1', 1) > 0;
      } catch {
        return false;
      }
    }),
  ).toBe(true);
  strayGroup = procStat(f.childPid('1', 1))?.pgrp ?? null;
  return running;
}

describe('ralphtool run: one run at a time', () => {
  it.each([
    ['the same change', CHANGE],
    ['another change in the same work tree', OTHER],
  ])(
    'refuses a second run of %s while one is running (exit 2), leaving the first alone',
    async (_what, change) => {
      fixture = busyFixture();
      const f = fixture;
      const first = await startBusyRun(f);
      const head = f.git('rev-parse', 'HEAD');
      const branch = f.currentBranch();
      const status = f.status();

      const again = await runCli(['run', change, '--json', ...fakeAgentFlags()], {
        cwd: f.dir,
        env: f.env(),
      });
      expect(again.stderr).toMatch(/another ralphtool|already running/);
      expect(f.git('rev-parse', 'HEAD')).toBe(head);
      expect(f.currentBranch()).toBe(branch);
      expect(f.status()).toEqual(status);
      expect(f.branchExists(`ralph/${OTHER}`)).toBe(false);
      // The refused run left no folder of its own behind (the busy run's folder stays).
      expect(existsSync(path.join(f.dir, '.git', 'ralphtool', OTHER))).toBe(false);
      expect(existsSync(path.join(f.dir, '.git', 'ralphtool', CHANGE, 'lock'))).toBe(true);

      // The first run is untouched and still stops normally.
      expect(first.child.exitCode).toBeNull();
      first.signal('SIGINT');
      expect((await first.exited).code).toBe(130);
      expect(single(first.events, 'run.finished')).toMatchObject({ outcome: 'stopped' });
      // Contract "Start": refused with exit 2 when another ralphtool holds the lock.
      expect(again.exitCode).toBe(2);
    },
  );
});
