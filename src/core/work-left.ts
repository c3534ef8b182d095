import type { RunOutcome } from './events.js';

// What a pull-mode worker (`ralphtool worker --from <remote>`) does with each change, and what
// the Action's plan job lists (docs/contract.md, "Pull-mode workers"): the one home of the rule
// "which changes have work left on the remote". Pure: the caller reads the remote, the default
// branch and this machine's copies, and passes what it found.

/** How a change with work left is taken up. */
export type WorkAction =
  /** No run recorded on the remote: `run <change> --push <remote>`. */
  | 'run'
  /** The remote records an unfinished run and this machine's copy is as far: `resume <change>`. */
  | 'resume'
  /** The remote records an unfinished run this machine has no current copy of: `resume --from`. */
  | 'resume-from';

/** Why a change is left alone. */
export type SkipKind =
  'finished' | 'claimed' | 'needs-person' | 'complete' | 'no-stories' | 'unreadable' | 'tried';

export type WorkChoice =
  | { change: string; action: WorkAction; why: string }
  | { change: string; action: 'skip'; skip: SkipKind; why: string };

/** What is known of one change: on the default branch, on the remote, on this machine. */
export interface ChangeFacts {
  change: string;
  /** Its stories on the remote's default branch; null when the change is not there. */
  stories: { done: number; total: number } | null;
  /** The run recorded on the remote; `unreadable` when its record cannot be read; null: none. */
  record: { status: 'active' | 'finished'; outcome: RunOutcome | null } | 'unreadable' | null;
  /** The claim on the remote: null when nobody holds it; `takeable` when it may be taken over. */
  claim: { takeable: boolean; holder: string } | null;
  /** This machine has a copy of the run recorded as far as the remote's, or further. */
  localCopyCurrent: boolean;
  /** This worker already took the change up (once per change and worker). */
  triedHere: boolean;
}

/**
 * Outcomes a person must look at before the run goes on: a story used up its attempts, the
 * agent asked a question, an error retrying cannot fix, a budget spent (resume keeps it).
 */
const NEEDS_PERSON: Partial<Record<RunOutcome, string>> = {
  'max-retries': 'a story used up its attempts',
  blocked: 'the agent asked a question',
  error: 'it ended in an error',
  budget: 'its budget is spent',
};

/** The choice for one change (see the module comment). */
export function chooseWork(facts: ChangeFacts, remote: string): WorkChoice {
  const { change, record, claim } = facts;
  const skip = (kind: SkipKind, why: string): WorkChoice => ({
    change,
    action: 'skip',
    skip: kind,
    why,
  });
  if (facts.triedHere) return skip('tried', 'this worker took it up already');
  if (record === 'unreadable') {
    return skip(
      'unreadable',
      `its record on ${remote} cannot be read (a newer ralphtool wrote it?): \`ralphtool status --remote ${remote}\``,
    );
  }
  if (record?.status === 'finished') {
    return skip('finished', `its run finished on ${remote}; its branch waits for a person`);
  }
  if (claim !== null && !claim.takeable) return skip('claimed', `claimed by ${claim.holder}`);
  if (record !== null) {
    const person = record.outcome === null ? undefined : NEEDS_PERSON[record.outcome];
    if (person !== undefined) {
      const answer = record.outcome === 'blocked' ? ' --answer "…"' : '';
      return skip(
        'needs-person',
        `${person}: a person decides (\`ralphtool resume ${change} --from ${remote}${answer}\`)`,
      );
    }
    return facts.localCopyCurrent
      ? { change, action: 'resume', why: 'its run is unfinished, this copy is current' }
      : { change, action: 'resume-from', why: `its run on ${remote} is unfinished` };
  }
  if (facts.stories === null || facts.stories.total === 0) {
    return skip('no-stories', 'its tasks.md has no stories');
  }
  if (facts.stories.done === facts.stories.total) {
    return skip('complete', `all ${String(facts.stories.total)} stories are ticked already`);
  }
  return { change, action: 'run', why: 'stories left, no run recorded' };
}

/**
 * The choices for every change, in the order a worker takes them up: unfinished runs first
 * (finish what is started), then new ones, each by name.
 */
export function chooseAll(facts: readonly ChangeFacts[], remote: string): WorkChoice[] {
  const rank = (c: WorkChoice): number => (c.action === 'run' ? 1 : c.action === 'skip' ? 2 : 0);
  return facts
    .map((f) => chooseWork(f, remote))
    .sort((a, b) => rank(a) - rank(b) || (a.change < b.change ? -1 : a.change > b.change ? 1 : 0));
}
