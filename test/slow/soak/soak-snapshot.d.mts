// Types of soak-snapshot.mjs (plain JS, shared with bench/soak.mjs).
import type { SnapshotEntry } from './soak-check.mjs';

export declare function cleanGitEnv(extra?: Record<string, string>): NodeJS.ProcessEnv;
export declare function git(dir: string, ...args: string[]): string;
export declare function gitSucceeds(dir: string, ...args: string[]): boolean;
export declare function blobId(bytes: string | Buffer): string;
export declare function snapshotTree(root: string): Map<string, SnapshotEntry>;
export declare function treeEntries(
  dir: string,
  rev: string,
): Map<string, { mode: string; oid: string }>;
export declare function diffEntries(
  expected: ReadonlyMap<string, { mode: string; oid: string }>,
  actual: ReadonlyMap<string, { mode: string; oid: string }>,
  label: string,
): string[];
