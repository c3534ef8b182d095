#!/usr/bin/env node
// One contender of the claim race: claims <change> on <remote> from the repository <dir> with
// ralphtool's own code (the built dist/), prints "won <sha>" or "refused: <message>", then stays
// alive until its stdin closes, as a running ralphtool would (a winner that exited at once would
// look like a crashed process of this host, whose claim may be taken over).
// Usage: node race-claim.mjs <dir> <remote> <change>
import path from 'node:path';
import process from 'node:process';
import { pathToFileURL } from 'node:url';

const dist = (file) => pathToFileURL(path.resolve('dist', file)).href;
const { locateRepo } = await import(dist('git/repo.js'));
const { engineContext } = await import(dist('checkpoint/run-git.js'));
const { remoteContext } = await import(dist('git/remote.js'));
const { acquireClaim } = await import(dist('run/remote/remote-claim.js'));

const [dir, remote, change] = process.argv.slice(2);
const engine = { timeoutMs: 60_000, baseEnv: process.env };
const repo = await locateRepo({ cwd: dir, ...engine });
const ctx = remoteContext(engineContext(repo, engine), 120_000);
try {
  const taken = await acquireClaim(ctx, remote, change, 15 * 60_000);
  process.stdout.write(`won ${taken.held.sha}\n`);
} catch (error) {
  process.stdout.write(`refused: ${error instanceof Error ? error.message : String(error)}\n`);
}
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
