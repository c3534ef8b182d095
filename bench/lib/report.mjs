// The benchmark's printed tables: per repository and variant the floor, the replay and ralphtool
// (ms per story, median and min–max of the rounds), their ratios and the git processes; then the
// long changes.
import { median, ratio, spread, table } from './stats.mjs';

const perStory = (samples) => samples.map((s) => s.msPerStory);

export function formatReport({ rounds, stories, cases, long, longRounds }) {
  const rows = cases.map((c) => {
    const floor = perStory(c.samples.floor);
    const replay = perStory(c.samples.replay);
    const ralph = perStory(c.samples.ralphtool);
    return [
      c.size.name,
      c.variant.name,
      spread(floor),
      spread(replay),
      spread(ralph),
      ratio(median(ralph), median(floor)),
      `${(median(ralph) - median(floor)).toFixed(1)} ms`,
      ratio(median(replay), median(floor)),
      `${(c.recording.loopCalls / stories).toFixed(1)} / ${median(c.samples.floor.map((s) => s.callsPerStory)).toFixed(1)}`,
    ];
  });
  const longRows = long.map((l) => {
    const floor = perStory(l.samples.floor);
    const ralph = perStory(l.samples.ralphtool);
    return [l.stories, spread(floor), spread(ralph), ratio(median(ralph), median(floor))];
  });
  return [
    `ralphtool per story beside the agent: ${stories} stories, ${rounds} rounds interleaved, median (min–max)`,
    '',
    table(
      [
        'repo',
        'story',
        'protocol floor',
        'ralphtool git replayed',
        'ralphtool',
        'ralphtool / floor',
        'ralphtool − floor',
        'replay / floor',
        'git procs (ralphtool / floor)',
      ],
      rows,
    ),
    '',
    'protocol floor  = the bare git commands from bash, timed by bash (`time`): accept: add -A +',
    '                  commit; a failed attempt first: add -A into a copy of the index (the copy',
    '                  not timed), write-tree, commit-tree, update-ref, reset --hard, clean -fd',
    'ralphtool git replayed = every git process ralphtool started inside the loop, run again bare',
    "ralphtool       = (first story.started → run.awaiting-choice − the agent's own time) / stories",
    '',
    ...(long.length > 0
      ? [
          `long changes (accepted stories, small repository, ${longRounds} rounds)`,
          '',
          table(['stories', 'protocol floor', 'ralphtool', 'ralphtool / floor'], longRows),
        ]
      : []),
  ].join('\n');
}

/**
 * A table of figures of two builds run side by side (ms; '—' where one was not measured), their
 * ratio, then the machine's load while they ran.
 */
export function beforeAfterReport({ title, firstColumn, rows, before, after, load }) {
  const ms = (v) => (Number.isNaN(v) ? '—' : `${v.toFixed(1)} ms`);
  return [
    title,
    '',
    `| ${firstColumn} | before | after | after / before |`,
    '| --- | ---: | ---: | ---: |',
    ...rows.map(
      ([label, key]) =>
        `| ${label} | ${ms(before[key])} | ${ms(after[key])} | ${(after[key] / before[key]).toFixed(2)}× |`,
    ),
    '',
    load.report(),
    '',
  ].join('\n');
}
