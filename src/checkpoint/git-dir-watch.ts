import { gitDirPrint, samePrint } from '../git/on-disk.js';
import type { GitDirPrint } from '../git/on-disk.js';
import type { RepoLocation } from '../git/repo.js';

/**
 * How long after an accept or a revert the tree it left is taken as known (the next attempt
 * normally starts within milliseconds). Past it (a usage-limit wait, a question), the next
 * check asks git again: the user may have worked in the repository meanwhile.
 */
const SETTLED_FOR_MS = 2000;

interface Mark {
  checkpoint: string;
  print: GitDirPrint;
}

/**
 * What the git directory looked like at two moments of the protocol, to skip git processes
 * whose answer is known (docs/architecture.md, "The cost of a story"):
 * - when an attempt begins at the checkpoint; if the print is the same when it ends, no git
 *   command of the agent moved HEAD or the branch or wrote the index, so the accept or the
 *   revert need not read them nor put them back;
 * - when an accept or a revert has just left HEAD, the index and the files at the checkpoint;
 *   the check before the next attempt need not ask `git status` again if nothing changed the
 *   print and it comes soon after.
 * Each mark is used once. The work tree's files are never taken from a print: an accept still
 * stages them all, a revert still saves and rewrites them.
 */
export class GitDirWatch {
  private attempt: Mark | null = null;
  private settled: (Mark & { at: number }) | null = null;

  constructor(
    private readonly repo: RepoLocation,
    private readonly branch: string,
  ) {}

  /** HEAD is on the branch at `checkpoint`, the index at it: an attempt may begin. */
  async atCheckpoint(checkpoint: string): Promise<void> {
    this.attempt = { checkpoint, print: await this.print() };
  }

  /** An accept or a revert just left everything at `checkpoint` with a clean work tree. */
  async settledAt(checkpoint: string): Promise<void> {
    const print = await this.print();
    this.settled = { checkpoint, print, at: Date.now() };
    this.attempt = { checkpoint, print };
  }

  /** Forgets both marks (a sequence left the tree in a state not worth remembering). */
  forget(): void {
    this.attempt = null;
    this.settled = null;
  }

  /** Whether no git command touched HEAD, the branch or the index since the attempt began. */
  async untouchedSinceAttempt(checkpoint: string): Promise<boolean> {
    const mark = this.attempt;
    this.attempt = null;
    return mark !== null && mark.checkpoint === checkpoint && (await this.unchanged(mark));
  }

  /** Whether the last accept or revert left things at `checkpoint` just now, unchanged since. */
  async stillSettled(checkpoint: string): Promise<boolean> {
    const mark = this.settled;
    this.settled = null;
    if (mark === null || mark.checkpoint !== checkpoint) return false;
    if (Date.now() - mark.at > SETTLED_FOR_MS) return false;
    return this.unchanged(mark);
  }

  private async unchanged(mark: Mark): Promise<boolean> {
    return samePrint(mark.print, await this.print());
  }

  private print(): Promise<GitDirPrint> {
    return gitDirPrint(this.repo, this.branch);
  }
}
