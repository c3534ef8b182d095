import { describe, expect, it } from 'vitest';
import { snapshotRefusal } from '../../src/checkpoint/snapshot-refusal.js';
import { UsageError } from '../../src/core/errors.js';

// The refusal text for each way git 2.39's `add -A` fails on a user's file (stderr as git
// prints it). The end-to-end refusals are in test/faults/attributes.test.ts; an unreadable file
// cannot be made there when the tests run as root, so its wording is pinned here.

describe('snapshotRefusal', () => {
  it('an unreadable file: names it and the reason', () => {
    const error = snapshotRefusal(
      'error: open("notes/private.txt"): Permission denied\nerror: unable to index file \'notes/private.txt\'\nfatal: adding files failed\n',
    );
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toBe(
      'the run did not start and nothing was changed: git cannot save your files: notes/private.txt cannot be read (Permission denied): make it readable (or add it to .gitignore), then start again',
    );
  });

  it('core.safecrlf: names the file and the conversion', () => {
    const error = snapshotRefusal('fatal: CRLF would be replaced by LF in u/win.txt\n');
    expect(error.message).toContain(
      'u/win.txt: core.safecrlf refuses it (CRLF would be replaced by LF)',
    );
    expect(error.message).toContain('git config core.safecrlf warn');
  });

  it('a required filter whose program is missing: names the file, the filter and the program', () => {
    const error = snapshotRefusal(
      "error: cannot run git-lfs: No such file or directory\nerror: cannot fork to run external filter 'git-lfs clean -- %f'\nerror: external filter 'git-lfs clean -- %f' failed\nfatal: art/cover.psd: clean filter 'lfs' failed\n",
    );
    expect(error.message).toContain(
      "art/cover.psd: its required clean filter 'lfs' failed (cannot run git-lfs: No such file or directory)",
    );
    expect(error.message).toContain('git config filter.lfs.required false');
  });

  it('anything else: git’s own verdict, on one line', () => {
    const error = snapshotRefusal('warning: something\nfatal: some new failure\n');
    expect(error.message).toBe(
      'the run did not start and nothing was changed: git cannot save your files: `git add -A` fails here (fatal: some new failure): fix that, then start again',
    );
    expect(error.message).not.toContain('\n');
  });
});
