// The benchmark's printed tables: per repository and variant, then per bare git command.
import { perStory } from './bare-git.mjs';
import { ms, table } from './stats.mjs';

export function formatReport({ results, sizes, startup, runs, stories, gitReps }) {
  const sizeOf = (name) => sizes.find((s) => s.name === name);
  const rows = results.map((r) => {
    const bare = perStory(sizeOf(r.repo).git);
    const bareStory = r.failFirst ? bare.accept + bare.revert : bare.accept;
    return [
      r.repo,
      r.variant,
      r.attempts,
      ms(r.wallMs),
      ms(r.agentMs),
      ms(r.fixedMs),
      ms(r.loopPerStoryMs),
      ms(r.overheadPerStoryMs),
      ms(bareStory),
      r.gitCalls ? (r.gitCalls.inLoop / stories).toFixed(1) : 'n/a',
    ];
  });
  const header = [
    'repo',
    'variant',
    'attempts',
    'wall',
    'agent',
    'fixed',
    'loop/story',
    'overhead/story',
    'bare git/story',
    'git procs/story',
  ];
  const commands = Object.keys(sizes[0].git);
  return [
    `ralphtool overhead: ${stories} stories, median of ${runs} runs`,
    '',
    table(header, rows),
    '',
    `agent          = sum of the agent processes' wall time (fake agent: a node start each)`,
    `fixed          = wall − agent − loop: process start, imports, set-up, completion`,
    `                 (node + CLI start alone, \`ralphtool --version\`: ${ms(startup)})`,
    'loop/story     = (first story.started → run.awaiting-choice) − agent, per story',
    'overhead/story = (wall − agent) / stories',
    'bare git/story = status + add -A + commit; when an attempt fails, plus temp-index',
    '                 write-tree + checkout -f -B + reset --hard + clean -fd + status',
    'git procs/story = git processes ralphtool started inside the loop, per story',
    '',
    `bare git commands: median of ${gitReps} repetitions`,
    '',
    table(
      ['command', ...sizes.map((s) => s.name)],
      [
        ...commands.map((c) => [c, ...sizes.map((s) => ms(s.git[c]))]),
        ['rev-parse via exec() wrapper', ...sizes.map((s) => ms(s.wrapperFloor))],
      ],
    ),
  ].join('\n');
}
