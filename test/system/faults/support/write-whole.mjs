// The helper processes' signal files are polled by the tests (exists? then read): written in
// place, a test can see the file between its creation and its write and read it empty (it did,
// under load in CI: `expected '' to be 'intact'`). Written to a temporary name and renamed, the
// file appears with its content or not at all.
import { renameSync, writeFileSync } from 'node:fs';

/** Writes `content` to `file` so that a reader never sees it part-written. */
export function writeWhole(file, content) {
  writeFileSync(`${file}.tmp`, content);
  renameSync(`${file}.tmp`, file);
}
