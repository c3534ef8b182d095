#!/usr/bin/env node
// Random agent behaviour soak, at scale: runs the built CLI over many seeds with the seeded
// random agent (test/slow/soak/soak-agent.mjs) and checks every run's final state with the same
// checker as test/slow/soak/soak.test.ts. Progress goes to stderr, the summary to stdout; exit 1
// when any run was inconsistent. See bench/README.md ("Random agent soak").
import { existsSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { parseArgs } from 'node:util';
import { soakOnce } from '../test/slow/soak/soak-world.mjs';
import { loadWatch } from './lib/load.mjs';

const { values: flags } = parseArgs({
  options: {
    seeds: { type: 'string', default: '200' },
    from: { type: 'string', default: '1' },
    stories: { type: 'string', default: '30' },
    'tasks-per-story': { type: 'string', default: '2' },
    jobs: { type: 'string', default: '2' },
    'max-retries': { type: 'string', default: '3' },
    'agent-timeout': { type: 'string', default: '2s' },
    'on-complete': { type: 'string', default: 'both' },
    hostile: { type: 'boolean', default: false },
    cli: { type: 'string', default: path.resolve('dist/cli/main.js') },
    json: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});

if (flags.help) {
  process.stdout.write(
    'node bench/soak.mjs [--seeds 200] [--from 1] [--stories 30] [--tasks-per-story 2] [--jobs 2]\n' +
      '  [--max-retries 3] [--agent-timeout 2s] [--on-complete keep|cleanup|both] [--hostile]\n' +
      '  [--cli dist/cli/main.js] [--json results.json]\n',
  );
  process.exit(0);
}

const count = positive('seeds');
const first = Number(flags.from);
const stories = positive('stories');
const tasksPerStory = positive('tasks-per-story');
const jobs = positive('jobs');
const maxRetries = Number(flags['max-retries']);
const choices = { keep: ['keep'], cleanup: ['cleanup'], both: ['keep', 'cleanup'] }[
  flags['on-complete']
];
if (!choices || !Number.isInteger(first) || !Number.isInteger(maxRetries) || maxRetries < 0) {
  fail('bad flags: see --help');
}
if (!existsSync(flags.cli)) fail(`${flags.cli} does not exist: run \`npm run build\` first`);

function positive(name) {
  const value = Number(flags[name]);
  if (!Number.isInteger(value) || value < 1) fail(`--${name} must be a positive whole number`);
  return value;
}

function fail(message) {
  process.stderr.write(`soak: ${message}\n`);
  process.exit(2);
}

/** `both` alternates: odd seeds keep, even seeds clean up. */
function choiceFor(seed) {
  return choices.length === 1 ? choices[0] : seed % 2 === 0 ? 'cleanup' : 'keep';
}

const seeds = Array.from({ length: count }, (_, i) => first + i);
const results = [];
const load = loadWatch();
const started = Date.now();
let next = 0;

async function worker() {
  while (next < seeds.length) {
    const seed = seeds[next++];
    const onComplete = choiceFor(seed);
    let result;
    try {
      result = await soakOnce({
        cli: flags.cli,
        seed,
        stories,
        tasksPerStory,
        maxRetries,
        agentTimeout: flags['agent-timeout'],
        onComplete,
        hostile: flags.hostile,
        keepFailed: true,
      });
    } catch (error) {
      result = {
        seed,
        outcome: null,
        attempts: 0,
        problems: [`soak itself failed: ${error.message}`],
      };
    }
    const { run: _run, stderr: _stderr, world, ...summary } = result;
    results.push({ ...summary, onComplete, kept: world?.dir ?? null });
    const mark = summary.problems.length === 0 ? 'ok' : `INCONSISTENT (${summary.problems.length})`;
    process.stderr.write(
      `[${results.length}/${seeds.length}] seed ${seed} ${onComplete}: ${summary.outcome} ` +
        `${summary.storiesCompleted ?? '?'}/${summary.storiesTotal ?? '?'} stories, ` +
        `${summary.attempts} attempts, ${((summary.durationMs ?? 0) / 1000).toFixed(1)} s, ${mark}\n`,
    );
  }
}

await Promise.all(Array.from({ length: Math.min(jobs, seeds.length) }, worker));
results.sort((a, b) => a.seed - b.seed);
const wallMs = Date.now() - started;
process.stdout.write(`${summarize(results, wallMs)}${load.report()}\n`);
if (flags.json)
  writeFileSync(flags.json, `${JSON.stringify({ flags, wallMs, results }, null, 2)}\n`);
process.exit(results.some((r) => r.problems.length > 0) ? 1 : 0);

function tally(list) {
  const out = {};
  for (const [key, n] of list) out[key] = (out[key] ?? 0) + n;
  return Object.entries(out)
    .sort((a, b) => b[1] - a[1])
    .map(([key, n]) => `${key} ${n}`)
    .join(', ');
}

function summarize(list, wall) {
  const attempts = list.reduce((sum, r) => sum + r.attempts, 0);
  const runMs = list.reduce((sum, r) => sum + (r.durationMs ?? 0), 0);
  const bad = list.filter((r) => r.problems.length > 0);
  const lines = [
    `Random agent soak: ${list.length} runs (seeds ${first}..${first + count - 1}), ${stories} stories of ${tasksPerStory} tasks,`,
    `  --max-retries ${maxRetries}, --agent-timeout ${flags['agent-timeout']}, --on-complete ${flags['on-complete']}${flags.hostile ? ', hostile behaviours on' : ''}, ${jobs} jobs, ${os.cpus().length} CPUs`,
    `outcomes:   ${tally(list.map((r) => [`${r.outcome} (exit ${r.exitCode})`, 1]))}`,
    `choices:    ${tally(list.map((r) => [r.onComplete, 1]))}`,
    `stories:    ${list.reduce((s, r) => s + (r.storiesCompleted ?? 0), 0)} accepted of ${list.reduce((s, r) => s + (r.storiesTotal ?? 0), 0)}`,
    `attempts:   ${attempts} (${(attempts / Math.max(list.length, 1)).toFixed(1)} per run)`,
    `failed:     ${tally(list.flatMap((r) => Object.entries(r.failedByKind ?? {})))}`,
    `behaviours: ${tally(list.flatMap((r) => Object.entries(r.behaviours ?? {})))}`,
    `time:       ${(wall / 1000).toFixed(0)} s wall, ${(runMs / Math.max(list.length, 1) / 1000).toFixed(1)} s per run, ${(runMs / Math.max(attempts, 1)).toFixed(0)} ms per attempt`,
    `consistent: ${list.length - bad.length} of ${list.length}`,
  ];
  for (const r of bad) {
    const hostile = flags.hostile ? ' --hostile' : '';
    lines.push(
      '',
      `seed ${r.seed} (${r.onComplete}) INCONSISTENT${r.kept ? `, repository kept at ${r.kept}` : ''}`,
      `  reproduce: node bench/soak.mjs --from ${r.seed} --seeds 1 --stories ${stories} --tasks-per-story ${tasksPerStory} --max-retries ${maxRetries} --agent-timeout ${flags['agent-timeout']} --on-complete ${r.onComplete}${hostile}`,
      ...r.problems.slice(0, 12).map((p) => `  - ${p}`),
      ...(r.problems.length > 12 ? [`  … and ${r.problems.length - 12} more`] : []),
    );
  }
  return `${lines.join('\n')}\n`;
}
