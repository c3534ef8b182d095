import type { InkKey } from '../../../src/ui/state/key-names.js';
import type { Change, ChangeSummary, Story } from '../../../src/core/change.js';
import type { RunEvent, TimedRunEvent } from '../../../src/core/events.js';

export const T0 = Date.parse('2026-03-01T10:00:00.000Z');

/** An event stamped `seconds` after T0. */
export function at(seconds: number, event: RunEvent): TimedRunEvent {
  return { ...event, ts: new Date(T0 + seconds * 1000).toISOString() };
}

export function story(id: string, title: string, done: boolean[], start = 1): Story {
  return {
    id,
    title,
    line: 1,
    done: done.length > 0 && done.every(Boolean),
    tasks: done.map((d, i) => ({
      id: `${id}.${i + start}`,
      description: `Task ${id}.${i + start} of ${title}`,
      done: d,
      line: i + 2,
      depth: 0,
    })),
  };
}

export function change(name: string, stories: Story[], scenarios = 2): Change {
  return {
    name,
    path: `openspec/changes/${name}`,
    stories,
    proposal: null,
    design: null,
    requirements: [
      {
        capability: 'auth',
        name: 'Login',
        operation: 'ADDED',
        scenarios: Array.from({ length: scenarios }, (_, i) => ({
          name: `Scenario number ${i + 1}`,
          given: ['a registered user'],
          when: ['they submit the form', 'the password matches'],
          then: [`they see page ${i + 1}`],
        })),
      },
    ],
  };
}

export function summaryOf(c: Change, lastModified = new Date(T0).toISOString()): ChangeSummary {
  const tasks = c.stories.flatMap((s) => s.tasks);
  return {
    name: c.name,
    path: c.path,
    stories: { total: c.stories.length, done: c.stories.filter((s) => s.done).length },
    tasks: { total: tasks.length, done: tasks.filter((t) => t.done).length },
    lastModified,
  };
}

/** A three-story change: story 1 done already, 2 and 3 to do. */
export function addAuth(): Change {
  return change('add-auth', [
    story('1', 'Setup', [true, true]),
    story('2', 'Login form', [false, false]),
    story('3', 'Sessions', [false]),
  ]);
}

export const started = (maxRetries = 2): RunEvent => ({
  type: 'run.started',
  change: 'add-auth',
  branch: 'ralph/add-auth',
  originalBranch: 'main',
  baseSha: 'abc1234def5678',
  agent: 'claude',
  maxRetries,
  stories: [
    { id: '1', title: 'Setup', done: true },
    { id: '2', title: 'Login form', done: false },
    { id: '3', title: 'Sessions', done: false },
  ],
});

export const storyStarted = (storyId: string, attempt: number, completed = 1): RunEvent => ({
  type: 'story.started',
  storyId,
  title: storyId === '2' ? 'Login form' : 'Sessions',
  index: Number(storyId),
  total: 3,
  completed,
  attempt,
});

export const result = (storyId: string, attempt: number, costUsd = 0.1): RunEvent => ({
  type: 'agent.result',
  storyId,
  attempt,
  turns: 7,
  tokens: { input: 1000, output: 200, cacheRead: 500, cacheWrite: 0 },
  costUsd,
  durationMs: 30_000,
  isError: false,
});

/** Story 2 done on its first attempt; story 3 fails once (FAILED signal) and then retries. */
export function storyTwoDoneStoryThreeRetrying(): TimedRunEvent[] {
  return [
    at(0, started()),
    at(1, storyStarted('2', 1)),
    at(2, {
      type: 'agent.message',
      storyId: '2',
      attempt: 1,
      text: 'Reading the login form code.',
    }),
    at(3, { type: 'agent.tool', storyId: '2', attempt: 1, name: 'Edit', summary: 'src/login.ts' }),
    at(4, { type: 'agent.message', storyId: '2', attempt: 1, text: '<promise>COMPLETE</promise>' }),
    at(31, result('2', 1, 0.12)),
    at(32, { type: 'checkpoint.created', storyId: '2', sha: '1111111122222222' }),
    at(32, {
      type: 'story.completed',
      storyId: '2',
      attempts: 1,
      costUsd: 0.12,
      durationMs: 30_000,
    }),
    at(33, storyStarted('3', 1, 2)),
    at(34, {
      type: 'agent.message',
      storyId: '3',
      attempt: 1,
      text: 'The session store is missing.',
    }),
    at(60, result('3', 1, 0.05)),
    at(61, {
      type: 'attempt.failed',
      storyId: '3',
      attempt: 1,
      kind: 'failed-signal',
      reason: 'no session store configured',
    }),
    at(62, {
      type: 'checkpoint.reverted',
      storyId: '3',
      attempt: 1,
      toSha: '1111111122222222',
      savedRef: 'refs/ralphtool/add-auth/attempts/3-1',
    }),
    at(62, { type: 'error', message: 'verify command flaked once', fatal: false }),
    at(63, storyStarted('3', 2, 2)),
    at(64, {
      type: 'agent.message',
      storyId: '3',
      attempt: 2,
      text: 'Trying with an in-memory store.',
    }),
  ];
}

/** Ink's key flags with none set: an input event of plain characters. */
export const NO_KEY: InkKey = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageUp: false,
  pageDown: false,
  home: false,
  end: false,
  tab: false,
  shift: false,
  return: false,
  escape: false,
  ctrl: false,
};
