import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { GitContext } from '../../src/git/git.js';
import { listRemoteRuns } from '../../src/remote/remote-runs.js';
import { readRemoteRunView } from '../../src/remote/remote-view.js';
import { cleanEnv, makeRepo, TIMEOUT_MS, type TempRepo } from '../git/helpers.js';

// A ref of the remote listed by `ls-remote` and gone by the fetch that follows: another
// machine's run ended in between (its claim released, its record deleted). Made to happen
// every time by a `git` on PATH that deletes the ref on the remote just before the fetch.

const repos: TempRepo[] = [];
afterEach(() => {
  for (const repo of repos.splice(0)) repo.remove();
});

/** A machine with a bare remote holding a record for `a`, and a claim and a record for `b`. */
function world(): { local: TempRepo; remote: string } {
  const local = makeRepo();
  repos.push(local);
  const remote = join(local.dir, 'remote.git');
  local.git('init', '-q', '--bare', remote);
  local.git('remote', 'add', 'origin', remote);
  const head = local.git('rev-parse', 'HEAD');
  for (const ref of ['a/record', 'b/claim', 'b/record']) {
    local.git('push', '-q', 'origin', `${head}:refs/ralphtool/${ref}`);
  }
  return { local, remote };
}

/** A context whose git deletes `ref` on `remote` before its first fetch. */
function racing(local: TempRepo, remote: string, ref: string): GitContext {
  const bin = join(local.dir, '.git', 'racing-bin');
  mkdirSync(bin, { recursive: true });
  const once = join(bin, 'done');
  const real = process.env.PATH ?? '';
  writeFileSync(
    join(bin, 'git'),
    [
      '#!/bin/bash',
      `export PATH=${JSON.stringify(real)}`,
      `if [[ " $* " == *" fetch "* && ! -e ${JSON.stringify(once)} ]]; then`,
      `  touch ${JSON.stringify(once)}`,
      `  git --git-dir=${JSON.stringify(remote)} update-ref -d ${ref}`,
      'fi',
      'exec git "$@"',
      '',
    ].join('\n'),
  );
  chmodSync(join(bin, 'git'), 0o755);
  return { cwd: local.dir, timeoutMs: TIMEOUT_MS, baseEnv: cleanEnv({ PATH: `${bin}:${real}` }) };
}

describe('a ref listed on the remote and gone by the fetch', () => {
  it('the runs on the remote: listed again, the released claim is no run', async () => {
    const { local, remote } = world();
    const runs = await listRemoteRuns(racing(local, remote, 'refs/ralphtool/b/claim'), 'origin');
    expect(runs.map((run) => [run.change, run.claim === null, run.recordSha !== null])).toEqual([
      ['a', true, true],
      ['b', true, true],
    ]);
  });

  it("a change's view: a record deleted meanwhile is none, not an unreachable remote", async () => {
    const { local, remote } = world();
    const view = await readRemoteRunView(
      racing(local, remote, 'refs/ralphtool/b/record'),
      'origin',
      'b',
    );
    expect(view.record).toBeNull();
  });
});
