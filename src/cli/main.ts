#!/usr/bin/env node
import { packageVersion } from './version.js';

// `ralphtool --version` answers before the program is loaded (its parser, its commands and what
// they import take about as long to load as Node itself takes to start); every other command
// line is the program's (entry.ts), loaded only now.
if (process.argv.length === 3 && process.argv[2] === '--version') {
  process.stdout.write(`${packageVersion()}\n`);
} else {
  await import('./entry.js');
}
