import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runPaths, writeRunState } from '../../src/checkpoint/index.js';
import { initialRunState } from '../../src/checkpoint/start.js';
import type { RunEvent } from '../../src/core/events.js';
import type { GitContext } from '../../src/git/git.js';
import { newClaimInfo, pushClaim } from '../../src/remote/claim.js';
import { claimRef, recordRef } from '../../src/remote/names.js';
import { createRemoteSync, type RemoteSync } from '../../src/run/remote/remote-sync.js';
import { TIMEOUT_MS, cleanEnv, repoPerTest, type TempRepo } from '../git/helpers.js';

// The pushes of `--push` (docs/git-protocol.md, "Pushes"): a checkpoint's push waits for the
// step that follows it and goes with it; with no step following, it goes alone; a push starts
// the gap after the last one at the soonest, the steps made meanwhile going together. Real git,
// a real bare remote; the waits are injected (carryMs, gapMs), so nothing here waits on a clock.

const makeRepo = repoPerTest();
const CHANGE = 'sync';
const syncs: RemoteSync[] = [];
afterEach(() => {
  for (const sync of syncs.splice(0)) sync.close();
});

interface World {
  repo: TempRepo;
  origin: TempRepo;
  events: RunEvent[];
  sync: RemoteSync;
  pushes: () => number;
  /** A new checkpoint on ralph/<change>, recorded in the state as the run's last. */
  checkpoint: (story: string) => Promise<string>;
}

async function world(
  carryMs: number,
  gapMs?: number,
  claim?: { sha: () => string; onRefused?: () => void },
): Promise<World> {
  const repo = makeRepo();
  const origin = makeRepo({ commit: false });
  rmSync(join(origin.dir, '.git'), { recursive: true, force: true });
  origin.git('init', '-q', '--bare', '-b', 'main');
  repo.git('remote', 'add', 'origin', origin.dir);
  repo.git('branch', `ralph/${CHANGE}`);
  const paths = runPaths(join(repo.dir, '.git'), CHANGE);
  mkdirSync(paths.dir, { recursive: true });
  const head = repo.git('rev-parse', 'HEAD');
  const state = {
    ...initialRunState(CHANGE, `ralph/${CHANGE}`, { kind: 'branch', name: 'main', sha: head }),
    step: null,
    baseSha: head,
    checkpointSha: head,
  };
  await writeRunState(paths.state, state);
  const ctx: GitContext = { cwd: repo.dir, timeoutMs: TIMEOUT_MS, baseEnv: cleanEnv() };
  const events: RunEvent[] = [];
  const sync = createRemoteSync({
    remote: 'origin',
    change: CHANGE,
    ctx,
    paths,
    gitCommonDir: join(repo.dir, '.git'),
    next: (event) => events.push(event),
    carryMs,
    ...(gapMs === undefined ? {} : { gapMs }),
    ...(claim === undefined
      ? {}
      : {
          claimSha: claim.sha,
          releaseClaim: true,
          ...(claim.onRefused ? { onClaimRefused: claim.onRefused } : {}),
        }),
  });
  syncs.push(sync);
  return {
    repo,
    origin,
    events,
    sync,
    pushes: () => events.filter((e) => e.type === 'remote.pushed').length,
    checkpoint: async (story) => {
      repo.write(`story-${story}.txt`, `${story}\n`);
      repo.git('add', '-A');
      repo.git('commit', '-q', '-m', `checkpoint: ${story}`);
      const sha = repo.git('rev-parse', 'HEAD');
      repo.git('update-ref', `refs/heads/ralph/${CHANGE}`, sha);
      await writeRunState(paths.state, { ...state, checkpointSha: sha });
      return sha;
    },
  };
}

const started = (storyId: string): RunEvent => ({
  type: 'story.started',
  storyId,
  title: `story ${storyId}`,
  index: Number(storyId) - 1,
  total: 9,
  completed: Number(storyId) - 1,
  attempt: 1,
});

describe('the pushes of a run that pushes', () => {
  it("a checkpoint and the next attempt's start go out in one push, the remote's branch and record at the checkpoint", async () => {
    const w = await world(3_600_000); // never alone within the test
    w.sync.emit(started('1'));
    await w.sync.flush();
    expect(w.pushes()).toBe(1);
    const sha = await w.checkpoint('1');
    w.sync.emit({ type: 'checkpoint.created', storyId: '1', sha });
    w.sync.emit(started('2'));
    await w.sync.flush();
    // One push for both steps (each alone would be two).
    expect(w.pushes()).toBe(2);
    expect(w.origin.git('rev-parse', `refs/heads/ralph/${CHANGE}`)).toBe(sha);
    const recorded = JSON.parse(w.origin.git('show', `${recordRef(CHANGE)}:state.json`)) as {
      checkpointSha: string;
    };
    expect(recorded.checkpointSha).toBe(sha);
  });

  it('a checkpoint with no step following goes out alone once the wait is over', async () => {
    const w = await world(0);
    const sha = await w.checkpoint('1');
    const pushed = new Promise<void>((resolve) => {
      const poll = (): void => {
        if (w.pushes() > 0) resolve();
        else setImmediate(poll);
      };
      poll();
    });
    w.sync.emit({ type: 'checkpoint.created', storyId: '1', sha });
    await pushed;
    expect(w.origin.git('rev-parse', `refs/heads/ralph/${CHANGE}`)).toBe(sha);
  });

  it("the run's end carries a waiting checkpoint, and run.finished comes after that push", async () => {
    const w = await world(3_600_000);
    const sha = await w.checkpoint('1');
    w.sync.emit({ type: 'checkpoint.created', storyId: '1', sha });
    w.sync.emit({ type: 'run.finished', outcome: 'complete' } as RunEvent);
    expect(w.events.map((e) => e.type)).toEqual(['checkpoint.created']);
    await w.sync.settled();
    expect(w.events.map((e) => e.type)).toEqual([
      'checkpoint.created',
      'remote.pushed',
      'run.finished',
    ]);
    expect(w.origin.git('rev-parse', `refs/heads/ralph/${CHANGE}`)).toBe(sha);
  });

  it('steps made within the gap after a push wait and go together in one push', async () => {
    const w = await world(3_600_000, 3_600_000);
    w.sync.emit(started('1'));
    await w.sync.flush();
    expect(w.pushes()).toBe(1);
    const sha = await w.checkpoint('1');
    w.sync.emit({ type: 'checkpoint.created', storyId: '1', sha });
    w.sync.emit(started('2'));
    w.sync.emit({ type: 'story.blocked', storyId: '2', question: 'which?' } as RunEvent);
    // A flush (the run's end) goes at once, whatever the gap: one push for the three steps.
    await w.sync.flush();
    expect(w.pushes()).toBe(2);
    expect(w.origin.git('rev-parse', `refs/heads/ralph/${CHANGE}`)).toBe(sha);
  });
});

describe("the claim released with the run's last push", () => {
  /** A world whose run holds the claim on its remote. */
  async function claimed(onRefused?: () => void): Promise<World & { claim: string }> {
    let held = '';
    const w = await world(3_600_000, 3_600_000, {
      sha: () => held,
      ...(onRefused ? { onRefused } : {}),
    });
    const ctx: GitContext = { cwd: w.repo.dir, timeoutMs: TIMEOUT_MS, baseEnv: cleanEnv() };
    const claim = await pushClaim(ctx, 'origin', newClaimInfo(CHANGE, new Date()), '');
    held = claim?.sha ?? '';
    return { ...w, claim: held };
  }
  const onOrigin = (w: World, ref: string): number =>
    w.origin.gitStatus('rev-parse', '-q', '--verify', ref);

  it("goes in the same push as the run's end: one push, the claim gone, nothing pushed after", async () => {
    const w = await claimed();
    w.sync.emit(started('1'));
    await w.sync.flush();
    // A push before the end keeps the claim.
    expect(w.origin.git('rev-parse', claimRef(CHANGE))).toBe(w.claim);
    expect(w.sync.claimReleased).toBe(false);
    const sha = await w.checkpoint('1');
    w.sync.emit({ type: 'checkpoint.created', storyId: '1', sha });
    w.sync.emit({ type: 'run.finished', outcome: 'complete' } as RunEvent);
    await w.sync.settled();
    expect(w.pushes()).toBe(2);
    expect(w.sync.claimReleased).toBe(true);
    expect(onOrigin(w, claimRef(CHANGE))).not.toBe(0);
    expect(w.origin.git('rev-parse', `refs/heads/ralph/${CHANGE}`)).toBe(sha);
    // The count of refs the push changed is the run's own (the claim is none of them).
    const last = w.events.filter((e) => e.type === 'remote.pushed').at(-1);
    expect(last).toMatchObject({ refs: 2 });
    // Nothing more goes out: the claim is no longer this machine's.
    w.sync.request();
    await w.sync.flush();
    expect(w.pushes()).toBe(2);
  });

  it("is not released when the claim there is another machine's: every ref refused, the claim checked", async () => {
    let refused = 0;
    const w = await claimed(() => (refused += 1));
    // Another machine took the claim over.
    const theirs = await pushClaim(
      { cwd: w.repo.dir, timeoutMs: TIMEOUT_MS, baseEnv: cleanEnv() },
      'origin',
      newClaimInfo(CHANGE, new Date()),
      w.claim,
    );
    w.sync.emit({ type: 'run.finished', outcome: 'complete' } as RunEvent);
    await w.sync.settled();
    expect(w.sync.claimReleased).toBe(false);
    expect(refused).toBe(1);
    expect(w.origin.git('rev-parse', claimRef(CHANGE))).toBe(theirs?.sha);
    // Nothing of the run went: the refs are refused all together.
    expect(onOrigin(w, recordRef(CHANGE))).not.toBe(0);
  });

  it('is not released when the last push cannot reach the remote (the session releases it alone)', async () => {
    const w = await claimed();
    w.repo.git('remote', 'set-url', 'origin', join(w.origin.dir, 'gone'));
    w.sync.emit({ type: 'run.finished', outcome: 'complete' } as RunEvent);
    await w.sync.settled();
    expect(w.sync.claimReleased).toBe(false);
    expect(w.events.map((e) => e.type)).toEqual(['remote.push-failed', 'run.finished']);
    expect(w.origin.git('rev-parse', claimRef(CHANGE))).toBe(w.claim);
  });
});
