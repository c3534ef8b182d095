import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';

// Every test of every tier gets a state folder of its own (XDG_STATE_HOME): ralphtool keeps the
// usage governor's account files there (docs/contract.md, "One account, many runs"), and a limit
// one test's fake agent reports must not pause a run of another test, nor touch the user's own.
// A test that shares a state folder between runs on purpose gives XDG_STATE_HOME itself.

let previous: string | undefined;
let folder: string | null = null;

beforeEach(() => {
  previous = process.env.XDG_STATE_HOME;
  folder = mkdtempSync(path.join(tmpdir(), 'ralph-state-'));
  process.env.XDG_STATE_HOME = folder;
});

afterEach(() => {
  if (previous === undefined) delete process.env.XDG_STATE_HOME;
  else process.env.XDG_STATE_HOME = previous;
  if (folder !== null) rmSync(folder, { recursive: true, force: true });
  folder = null;
});
