// The soak check's view of what ralphtool recorded besides the branch: the saved attempt
// refs, state.json, the prompts and transcripts, and the agents' process groups.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { blobId, git, gitSucceeds, treeEntries } from './soak-snapshot.mjs';

/** Failure kinds whose reason the next prompt must carry (contract "The prompt"). */
const WITH_CONTEXT = new Set(['failed-signal', 'tasks-unchecked', 'verify-failed']);

/** A long reason (stderr of a crash) cut to what fits one line of a report. */
export function clip(text) {
  const line = String(text).replace(/\s+/g, ' ');
  return line.length > 160 ? `${line.slice(0, 160)}…` : line;
}

/** Every failed attempt, and only those, saved under its ref, with the files the agent wrote and its commits. */
export function checkAttemptRefs(world, failed, logs, add) {
  const { dir, change } = world;
  const prefix = `refs/ralphtool/${change}/attempts/`;
  const refs = git(dir, 'for-each-ref', '--format=%(refname)', prefix)
    .split('\n')
    .filter(Boolean)
    .sort();
  const want = failed.map((a) => `${prefix}${a.storyId}-${a.attempt}`).sort();
  if (refs.join(' ') !== want.join(' '))
    add(`attempt refs: ${refs.join(' ') || 'none'}; expected ${want.join(' ') || 'none'}`);
  for (const a of failed) {
    const key = `${a.storyId}-${a.attempt}`;
    const ref = `${prefix}${key}`;
    if (!refs.includes(ref)) continue;
    const saved = treeEntries(dir, ref);
    for (const entry of logs.get(key) ?? []) {
      if (entry.wrote && !saved.has(entry.wrote))
        add(`${key}: ${entry.wrote} is not in its saved ref`);
      else if (entry.wrote && saved.get(entry.wrote).oid !== blobId(entry.content))
        add(`${key}: ${entry.wrote} saved with other content`);
      if (entry.commit && !gitSucceeds(dir, 'merge-base', '--is-ancestor', entry.commit, ref))
        add(`${key}: its commit ${entry.commit} is not kept by its ref`);
    }
  }
}

/** state.json: finished with the choice, and the same stories, attempts and checkpoint as the events. */
export function checkState(world, run, read, tip, add) {
  const file = path.join(world.dir, '.git', 'ralphtool', world.change, 'state.json');
  let state;
  try {
    state = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    add(`state.json unreadable: ${error.message}`);
    return;
  }
  const expect = (what, got, want) => {
    if (got !== want)
      add(`state.json ${what} is ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
  };
  // A run kept with stories left stays resumable (docs/contract.md, "Keep").
  const keptIncomplete = run.onComplete === 'keep' && read.finished?.outcome !== 'complete';
  expect('status', state.status, keptIncomplete ? 'active' : 'finished');
  expect('choice', state.choice, run.onComplete);
  expect('outcome', state.outcome, read.finished?.outcome ?? null);
  expect('step', state.step, null);
  expect('currentStory', state.currentStory, null);
  expect('baseSha', state.baseSha, read.baseSha);
  expect('checkpointSha', state.checkpointSha, tip);
  for (const id of read.stories) {
    const tries = read.attempts.filter((a) => a.storyId === id);
    const progress = state.stories?.[id];
    expect(`stories.${id}.attempts`, progress?.attempts ?? 0, tries.length);
    expect(
      `stories.${id}.completed`,
      progress?.completed ?? false,
      tries.some((a) => a.accepted),
    );
  }
}

/** Each attempt's prompt names its story and carries the previous failure exactly when the contract says so. */
export function checkPrompts(world, attempts, add) {
  const folder = path.join(world.dir, '.git', 'ralphtool', world.change);
  attempts.forEach((a, i) => {
    const key = `${a.storyId}-${a.attempt}`;
    const file = path.join(folder, 'prompts', `${key}.md`);
    if (!existsSync(file)) return add(`${key}: no prompt file`);
    if (!existsSync(path.join(folder, 'transcripts', `${key}.ndjson`)))
      add(`${key}: no transcript`);
    const prompt = readFileSync(file, 'utf8');
    if (!prompt.startsWith(`# Working on Story ${a.storyId}: `))
      add(`${key}: the prompt is not about story ${a.storyId}`);
    const previous = a.attempt > 1 ? attempts[i - 1] : null;
    const wantSection = previous !== null && WITH_CONTEXT.has(previous.kind);
    if (prompt.includes('## Previous Attempt Failed') !== wantSection) {
      add(
        `${key}: previous-failure section ${wantSection ? 'missing' : 'present'} after ${previous?.kind ?? 'nothing'}`,
      );
    } else if (wantSection && !prompt.includes(previous.reason.split('\n')[0])) {
      add(`${key}: the prompt lacks the previous reason "${clip(previous.reason)}"`);
    }
  });
}

/** Children of hanging agents died with them (the whole process group is killed). */
export function checkStrayProcesses(logs, add) {
  if (!existsSync('/proc/self')) return;
  for (const [key, entries] of logs) {
    for (const { child } of entries.filter((e) => e.child)) {
      try {
        if (readFileSync(`/proc/${child}/cmdline`, 'utf8').includes('soak-hang-child'))
          add(`${key}: its child ${child} still runs`);
      } catch {
        // gone, as it should be
      }
    }
  }
}
