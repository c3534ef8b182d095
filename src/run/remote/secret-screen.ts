import { attemptRefTips } from '../../checkpoint/index.js';
import type { Secret } from '../../core/redact.js';
import type { GitContext } from '../../git/git.js';
import { filesWithSecrets } from '../secrets.js';

// Nothing with a secret's value leaves the machine (docs/contract.md, "What stays on the
// machine"): before each push, every saved attempt and the progress save not seen yet are read
// for the secrets ralphtool knows; one that holds one stays here, said once, never pushed.

export interface SecretScreen {
  /**
   * The attempt refs that may go (full names); the others are said once and stay here. `tips`:
   * the attempt refs as read just before (remote/run-refs.ts); absent: read here.
   */
  attemptsToPush: (tips?: ReadonlyMap<string, string>) => Promise<string[]>;
  /** Whether the progress save at this commit may go. */
  progressMayGo: (commit: string) => Promise<boolean>;
}

export function createSecretScreen(config: {
  ctx: GitContext;
  change: string;
  secrets: () => Promise<readonly Secret[]>;
  /** One line for the user (a warning). */
  warn: (message: string) => void;
}): SecretScreen {
  /** Commit → the files of it holding a secret ([] when none); each commit is read once. */
  const seen = new Map<string, string[]>();
  const said = new Set<string>();
  const filesOf = async (commit: string): Promise<string[]> => {
    const known = seen.get(commit);
    if (known !== undefined) return known;
    const files = await filesWithSecrets(config.ctx, commit, await config.secrets());
    seen.set(commit, files);
    return files;
  };
  const withhold = (what: string, commit: string, files: string[]): void => {
    if (said.has(commit)) return;
    said.add(commit);
    config.warn(
      `${what} holds a secret's value (${files.slice(0, 3).join(', ')}${files.length > 3 ? ', …' : ''}): it stays on this machine and is never pushed`,
    );
  };
  return {
    attemptsToPush: async (tips) => {
      const push: string[] = [];
      for (const [ref, commit] of tips ?? (await attemptRefTips(config.ctx, config.change))) {
        const files = await filesOf(commit);
        if (files.length === 0) push.push(ref);
        else withhold(`the saved attempt ${ref}`, commit, files);
      }
      return push;
    },
    progressMayGo: async (commit) => {
      const files = await filesOf(commit);
      if (files.length > 0) withhold('the attempt going on', commit, files);
      return files.length === 0;
    },
  };
}
