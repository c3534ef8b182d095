#!/usr/bin/env node
import { packageVersion } from './version.js';

// `ralphtool --version` answers before the program is loaded (its parser, its commands and what
// they import take about as long to load as Node itself takes to start); every other command
// line is the program's (entry.ts), loaded only now.
if (process.argv.length === 3 && process.argv[2] === '--version') {
  process.stdout.write(`${packageVersion()}\n`);
} else {
  // Node 22 keeps the compiled modules in a cache folder (its own: os.tmpdir()/node-compile-cache,
  // or NODE_COMPILE_CACHE; off with NODE_DISABLE_COMPILE_CACHE); a cache it cannot use or write
  // it only reports in the return value, never throws. Node 20 has none: the call is skipped.
  // (Imported here, not above: --version does without.)
  const { default: module } = await import('node:module');
  (module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
  await import('./entry.js');
}
