#!/usr/bin/env node
// A pre-receive hook for the test remote: for every push that carries a run's record, checks
// that the checkpoint the record names is the commit the run's branch will be at once the push
// is applied, and appends "ok <change>" or "MISMATCH …" to $RECORD_CHECK_LOG. Never refuses.
import { execFileSync } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import process from 'node:process';

const log = process.env.RECORD_CHECK_LOG;
const git = (...args) => execFileSync('git', args, { encoding: 'utf8' }).trim();
const updates = new Map(
  readFileSync(0, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const [, next, ref] = l.split(' ');
      return [ref, next];
    }),
);
for (const [ref, next] of updates) {
  const match = /^refs\/ralphtool\/([^/]+)\/record$/.exec(ref);
  if (!match || /^0+$/.test(next)) continue;
  const change = match[1];
  const state = JSON.parse(git('cat-file', 'blob', `${next}:state.json`));
  const branchRef = `refs/heads/ralph/${change}`;
  let branch = updates.get(branchRef);
  if (branch === undefined) {
    try {
      branch = git('rev-parse', '--verify', '--quiet', branchRef);
    } catch {
      branch = null;
    }
  }
  const ok = branch === null || /^0+$/.test(branch) || branch === state.checkpointSha;
  appendFileSync(
    log,
    ok ? `ok ${change}\n` : `MISMATCH ${change}: record ${state.checkpointSha} branch ${branch}\n`,
  );
}
