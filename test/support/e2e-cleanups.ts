import { afterEach } from 'vitest';
import { makeChangeRepo, type TempRepo } from './temp-repo.js';

/**
 * What an end-to-end test file starts (repositories, scripted API servers) is undone after each
 * test, last first. Returns `later`, which registers one undo, and `repoWith`, a change
 * repository that is removed afterwards.
 */
export function undoAfterEach(change: string): {
  later: (undo: () => Promise<void> | void) => void;
  repoWith: (stories: { title: string; tasks: string[] }[]) => TempRepo;
} {
  const undos: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const undo of undos.splice(0).reverse()) await undo();
  });
  const later = (undo: () => Promise<void> | void): void => {
    undos.push(undo);
  };
  return {
    later,
    repoWith(stories) {
      const repo = makeChangeRepo(change, stories);
      later(() => repo.remove());
      return repo;
    },
  };
}
