// The benchmarks' command lines: `--name value` options and the built CLI they run.
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

/** The checkout the benchmarks live in. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The value after `--<name>` on the command line, or `fallback` when it is not given. */
export function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  if (i === -1) return fallback;
  const value = process.argv[i + 1];
  if (value === undefined) throw new Error(`--${name} needs a value`);
  return value;
}

/**
 * The CLI to measure: `--cli` (a copy of a build elsewhere, so a rebuild of dist/ cannot change
 * it mid-benchmark), else this checkout's dist/cli/main.js.
 */
export function cliPath() {
  return path.resolve(option('cli', path.join(ROOT, 'dist/cli/main.js')));
}
