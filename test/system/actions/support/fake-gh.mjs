#!/usr/bin/env node
// A stand-in for the GitHub CLI: records each call (argv, and the body file's text) as one JSON
// line in $FAKE_GH_LOG, and keeps one pull request per head branch in $FAKE_GH_LOG.pr.<head>:
// `pr list --head <b>` prints its number once `pr create --head <b>` made it. Anything else
// succeeds silently.
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import process from 'node:process';

const argv = process.argv.slice(2);
const log = process.env.FAKE_GH_LOG;
const at = argv.indexOf('--body-file');
const body = at === -1 ? null : readFileSync(argv[at + 1], 'utf8');
appendFileSync(log, `${JSON.stringify({ argv, body })}\n`);
const head = argv.indexOf('--head') === -1 ? '' : argv[argv.indexOf('--head') + 1];
const pr = `${log}.pr.${head.replace(/[^A-Za-z0-9-]/g, '_')}`;
if (argv[0] === 'pr' && argv[1] === 'list' && existsSync(pr)) {
  process.stdout.write(`${readFileSync(pr, 'utf8').trim()}\n`);
}
if (argv[0] === 'pr' && argv[1] === 'create') {
  writeFileSync(pr, '7\n');
  process.stdout.write('https://github.com/example/repo/pull/7\n');
}
