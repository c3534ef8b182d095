import { chmodSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FaultWorld, succeed, type Step } from './support/world.js';

// Fault matrix §1: git's attributes and config store some files as other bytes than they have
// (end-of-line conversion, `ident`, clean filters), and a checkout writes other bytes back.
// The user's uncommitted and untracked files must still come back byte for byte after a
// failed attempt (revert) and after the cleanup, while the branch's commits hold what the
// repository would normally commit. Each variant goes through a failed attempt that overwrites
// or deletes every one of the user's files, an accepted attempt, a second story, then cleanup
// or keep.

const CHANGE = 'attributes';

interface Variant {
  name: string;
  config?: Record<string, string>;
  /** Committed as .gitattributes before the user's files are written. */
  attributes?: string;
  /** The user's own files (uncommitted or untracked) at the start, as raw bytes. */
  files: Record<string, Buffer>;
  /** Committed before the run, then overwritten with `files`' bytes (so: uncommitted). */
  committed?: Record<string, string>;
}

const b = (text: string): Buffer => Buffer.from(text, 'latin1');
const NUL_BINARY = Buffer.from([0x61, 0x00, 0x0d, 0x0a, 0xff, 0xfe, 0x0a, 0x0d]);

const VARIANTS: Variant[] = [
  {
    name: 'core.autocrlf=true: LF, CRLF, mixed and NUL-binary files',
    config: { 'core.autocrlf': 'true' },
    committed: { 'u/edited.txt': 'v1\n' },
    files: {
      'u/lf.txt': b('one\ntwo\n'),
      'u/crlf.txt': b('one\r\ntwo\r\n'),
      'u/mixed.txt': b('one\r\ntwo\n'),
      'u/edited.txt': b('v2\nlf only\n'),
      'u/blob.bin': NUL_BINARY,
    },
  },
  {
    name: 'core.autocrlf=input: CRLF, mixed and invalid UTF-8 files',
    config: { 'core.autocrlf': 'input' },
    committed: { 'u/edited.txt': 'v1\n' },
    files: {
      'u/crlf.txt': b('one\r\ntwo\r\n'),
      'u/mixed.txt': b('one\r\ntwo\n'),
      'u/latin1.txt': b('caf\xe9\r\nna\xefve\r\n'),
      'u/edited.txt': b('v2\r\n'),
      'u/lf.txt': b('plain\n'),
    },
  },
  {
    name: '* text=auto: CRLF, mixed, invalid UTF-8 and NUL-binary files',
    attributes: '* text=auto\n',
    files: {
      'u/crlf.md': b('# title\r\nbody\r\n'),
      'u/mixed.md': b('a\r\nb\nc\r\n'),
      'u/latin1.txt': b('\xff\xfe odd\r\n'),
      'u/blob.bin': NUL_BINARY,
    },
  },
  {
    name: 'eol=crlf on LF files, eol=lf on CRLF and mixed files',
    attributes: '*.crlf eol=crlf\n*.lf eol=lf\n',
    files: {
      'u/a.crlf': b('lf\nonly\n'),
      'u/b.crlf': b('already\r\ncrlf\r\n'),
      'u/c.lf': b('crlf\r\nhere\r\n'),
      'u/d.lf': b('mixed\r\nhere\n'),
    },
  },
  {
    name: 'ident: $Id$ is collapsed when stored and expanded when checked out',
    attributes: '*.c ident\n',
    files: { 'u/main.c': b('/* $Id$ */\nint main;\n'), 'u/other.c': b('/* $Id: made-up $ */\n') },
  },
  {
    name: 'a clean filter that does not round-trip (redacts a word)',
    attributes: '*.cfg filter=redact\n',
    config: { 'filter.redact.clean': 'sed s/secret/XXXXXX/', 'filter.redact.smudge': 'cat' },
    files: { 'u/app.cfg': b('token=secret\n'), 'u/plain.cfg': b('nothing to hide\n') },
  },
  {
    name: 'core.safecrlf=warn with core.autocrlf=input: the CRLF file is stored as LF',
    config: { 'core.safecrlf': 'warn', 'core.autocrlf': 'input' },
    files: { 'u/win.txt': b('from\r\nwindows\r\n') },
  },
];

/** Filters that do round-trip, and filters whose program is missing but that are not required. */
const ROUND_TRIP: Variant = {
  name: 'round-tripping filters, a missing optional filter, LFS attributes without LFS',
  attributes: '*.rot filter=rot\n*.gone filter=gone\n*.big filter=lfs diff=lfs merge=lfs -text\n',
  config: {
    'filter.rot.clean': 'tr a-z n-za-m',
    'filter.rot.smudge': 'tr a-z n-za-m',
    'filter.gone.clean': 'ralphtool-no-such-filter-program',
    'filter.gone.smudge': 'ralphtool-no-such-filter-program',
  },
  files: {
    'u/a.rot': b('hello rot\n'),
    'u/b.gone': b('kept as is\r\n'),
    'u/c.big': NUL_BINARY,
  },
};

let world: FaultWorld | undefined;
afterEach(() => {
  world?.remove();
  world = undefined;
});

function variantWorld(v: Variant): FaultWorld {
  world = new FaultWorld(CHANGE, 2);
  const w = world;
  for (const [key, value] of Object.entries(v.config ?? {})) w.git('config', key, value);
  if (v.attributes !== undefined || v.committed) {
    if (v.attributes !== undefined) w.write('.gitattributes', v.attributes);
    for (const [file, content] of Object.entries(v.committed ?? {})) w.write(file, content);
    w.git(
      'add',
      '--',
      ...(v.attributes !== undefined ? ['.gitattributes'] : []),
      ...Object.keys(v.committed ?? {}),
    );
    w.git('commit', '-q', '-m', 'attributes and committed files');
  }
  for (const [file, bytes] of Object.entries(v.files)) w.write(file, bytes);
  w.rebaseline();
  // The failed attempt overwrites or deletes every one of the user's files.
  const clobber: Step[] = Object.keys(v.files).map((file, i) =>
    i % 2 === 0 ? { write: file, content: 'agent was here\n' } : { delete: file },
  );
  w.scenario({
    '1-1': [...clobber, { write: 'src/one.txt', content: 'one\n' }, { signal: 'FAILED: not yet' }],
    '1-2': succeed('src/one.txt', 'one\n'),
    '2-1': succeed('src/two.txt', 'two\n'),
  });
  return w;
}

/** Paths whose bytes differ from the variant's (raw Buffer comparison). */
function changedBytes(w: FaultWorld, v: Variant): string[] {
  return Object.entries(v.files)
    .filter(([file, bytes]) => {
      try {
        return !readFileSync(path.join(w.dir, file)).equals(bytes);
      } catch {
        return true;
      }
    })
    .map(([file]) => file);
}

describe('content transformed between work tree and index', () => {
  for (const v of [...VARIANTS, ROUND_TRIP]) {
    describe(v.name, () => {
      it('revert, then keep: the files keep their bytes, the commits hold what git add stores', async () => {
        const w = variantWorld(v);
        const result = await w.loop('run', [], { onComplete: 'keep' });
        expect(result.exitCode, result.stderr).toBe(0);
        expect(w.subjects(`main..${w.branch}`)).toEqual([
          'initial state',
          'checkpoint: 1',
          'checkpoint: 2',
        ]);
        expect(changedBytes(w, v)).toEqual([]);
        expect(w.userFilesChanged()).toEqual([]);
        // The history is what this repository commits: each file as `git add` stores it.
        for (const file of Object.keys(v.files)) {
          expect(w.sha(`${w.branch}~2:${file}`), file).toBe(
            w.git('hash-object', '--', file).trim(),
          );
        }
        expect(w.git('show', `refs/ralphtool/${CHANGE}/attempts/1-1:src/one.txt`)).toBe('one\n');
        expect(w.status()).toEqual([]);
      });

      it('revert, then cleanup: back on main with every file byte-identical', async () => {
        const w = variantWorld(v);
        const result = await w.loop('run', [], { onComplete: 'cleanup' });
        expect(result.exitCode, result.stderr).toBe(0);
        expect(w.currentBranch()).toBe('main');
        expect(w.branchExists(w.branch)).toBe(false);
        expect(changedBytes(w, v)).toEqual([]);
        expect(w.userFilesChanged()).toEqual([]);
        // The agent's files are written the way git writes them here (CRLF with autocrlf=true).
        expect(w.read('src/one.txt').replace(/\r\n/g, '\n')).toBe('one\n');
        expect(w.read('src/two.txt').replace(/\r\n/g, '\n')).toBe('two\n');
      });
    });
  }
});

/** A start that must be refused before anything changes: exit 2, one line, repository as it was. */
async function expectRefusedStart(w: FaultWorld, ...mentions: string[]): Promise<void> {
  const headBefore = w.sha('HEAD');
  const statusBefore = w.status();
  const result = await w.loop('run', [], { onComplete: 'keep' });
  expect(result.exitCode, result.stderr).toBe(2);
  const lines = result.stderr.split('\n').filter((line) => line.trim() !== '');
  expect(lines, result.stderr).toHaveLength(1);
  for (const text of mentions) expect(result.stderr).toContain(text);
  expect(result.stderr).not.toMatch(/\n\s+at /); // no stack trace
  expect(w.currentBranch()).toBe('main');
  expect(w.sha('HEAD')).toBe(headBefore);
  expect(w.branchExists(w.branch)).toBe(false);
  expect(w.exists(path.relative(w.dir, w.stateFile))).toBe(false);
  expect(w.git('for-each-ref', 'refs/ralphtool/')).toBe('');
  expect(w.status()).toEqual(statusBefore);
  expect(w.userFilesChanged()).toEqual([]);
  expect(w.invoked('1', 1)).toBe(false);
}

describe('a snapshot git cannot make: the start is refused before anything changes', () => {
  it('core.safecrlf=true refuses a CRLF file (autocrlf=input)', async () => {
    world = new FaultWorld(CHANGE, 1);
    const w = world;
    w.git('config', 'core.autocrlf', 'input');
    w.git('config', 'core.safecrlf', 'true');
    w.write('notes/win.txt', b('from\r\nwindows\r\n'));
    w.rebaseline();
    await expectRefusedStart(w, 'notes/win.txt', 'core.safecrlf', 'CRLF would be replaced by LF');
  });

  it('core.safecrlf=true refuses a mixed file (autocrlf=true)', async () => {
    world = new FaultWorld(CHANGE, 1);
    const w = world;
    w.git('config', 'core.autocrlf', 'true');
    w.git('config', 'core.safecrlf', 'true');
    w.write('notes/mixed.txt', b('a\r\nb\n'));
    w.rebaseline();
    await expectRefusedStart(w, 'core.safecrlf', 'would be replaced by');
  });

  it('a required filter whose program is missing (LFS configured but not installed)', async () => {
    world = new FaultWorld(CHANGE, 1);
    const w = world;
    w.write('.gitattributes', '*.psd filter=lfs diff=lfs merge=lfs -text\n');
    w.git('add', '.gitattributes');
    w.git('commit', '-q', '-m', 'lfs attributes');
    w.git('config', 'filter.lfs.clean', 'ralphtool-missing-git-lfs clean -- %f');
    w.git('config', 'filter.lfs.smudge', 'ralphtool-missing-git-lfs smudge -- %f');
    w.git('config', 'filter.lfs.required', 'true');
    w.write('art/cover.psd', NUL_BINARY);
    w.rebaseline();
    await expectRefusedStart(w, 'art/cover.psd', "clean filter 'lfs' failed", 'filter.lfs');
  });

  it('a required filter whose program fails', async () => {
    world = new FaultWorld(CHANGE, 1);
    const w = world;
    w.write('.gitattributes', '*.enc filter=crypt\n');
    w.git('add', '.gitattributes');
    w.git('commit', '-q', '-m', 'crypt attributes');
    w.git('config', 'filter.crypt.clean', 'false');
    w.git('config', 'filter.crypt.smudge', 'cat');
    w.git('config', 'filter.crypt.required', 'true');
    w.write('secrets/key.enc', 'not encrypted yet\n');
    w.rebaseline();
    await expectRefusedStart(w, 'secrets/key.enc', "clean filter 'crypt' failed");
  });

  it.skipIf(process.getuid?.() === 0)('an unreadable untracked file', async () => {
    world = new FaultWorld(CHANGE, 1);
    const w = world;
    w.write('notes/private.txt', 'mine\n');
    chmodSync(path.join(w.dir, 'notes/private.txt'), 0o000);
    try {
      await expectRefusedStart(w, 'notes/private.txt', 'cannot be read');
    } finally {
      chmodSync(path.join(w.dir, 'notes/private.txt'), 0o644);
    }
  });
});

describe('core.safecrlf=true and the agent’s own files', () => {
  it('an attempt that leaves a file safecrlf refuses is still saved and reverted', async () => {
    world = new FaultWorld(CHANGE, 1);
    const w = world;
    w.git('config', 'core.autocrlf', 'input');
    w.git('config', 'core.safecrlf', 'true');
    w.scenario({
      '1-1': [{ write: 'src/win.txt', content: 'agent\r\ncrlf\r\n' }, { signal: 'FAILED: no' }],
      '1-2': succeed('src/one.txt', 'one\n'),
    });
    const result = await w.loop('run', [], { onComplete: 'keep' });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(w.git('show', `refs/ralphtool/${CHANGE}/attempts/1-1:src/win.txt`)).toBe(
      'agent\ncrlf\n',
    );
    expect(w.exists('src/win.txt')).toBe(false);
    expect(w.subjects(`main..${w.branch}`)).toEqual(['initial state', 'checkpoint: 1']);
    expect(w.userFilesChanged()).toEqual([]);
  });
});
