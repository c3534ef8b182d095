import { describe, expect, it } from 'vitest';
import type { RunEvent, RunEventType } from '../../src/core/events.js';
import { emptySummary, summarize, type RunSummary } from '../../src/core/run-summary.js';
import { clockTime } from '../../src/format/clock.js';
import {
  readEvent,
  type EventReading,
  type ReadingContext,
} from '../../src/format/event-reading.js';

// The one reading of the loop's events both presenters share (docs/architecture.md, "format/"):
// every kind of event of core/events.ts is read here, with its words for the story's transcript
// and for the run's stream of lines.

const NOW = Date.parse('2026-11-28T12:00:00.000Z');
const TOLERATED = { command: 'npm test', passed: false, tolerated: true };
const TOLERATED_NOTE = 'npm test still fails as before the run: not blocking';

const started: Extract<RunEvent, { type: 'run.started' }> = {
  type: 'run.started',
  change: 'add-auth',
  branch: 'ralph/add-auth',
  originalBranch: 'main',
  baseSha: 'a'.repeat(40),
  agent: 'claude',
  maxRetries: 2,
  stories: [{ id: '1', title: 'Login', done: false }],
};

/** One event of every kind: a kind missing here fails to compile (a key per RunEventType). */
const SAMPLES: { [K in RunEventType]: Extract<RunEvent, { type: K }> } = {
  'run.started': started,
  'resolve.started': {
    type: 'resolve.started',
    storyId: '2',
    title: 'Bring this change onto your work tree',
    files: ['src/app.ts', 'README.md'],
  },
  'resolve.dropped': {
    type: 'resolve.dropped',
    storyId: '2',
    reason: '3 attempts failed (conflict-markers)',
  },
  'story.started': {
    type: 'story.started',
    storyId: '1',
    title: 'Login',
    index: 1,
    total: 1,
    completed: 0,
    attempt: 1,
  },
  'agent.switched': {
    type: 'agent.switched',
    storyId: '1',
    attempt: 1,
    from: 'claude',
    to: 'codex',
    model: 'gpt-5',
    reason: 'limit',
    kind: 'usage',
    resetsAt: null,
    until: '2026-11-28T15:00:00.000Z',
  },
  'agent.message': {
    type: 'agent.message',
    storyId: '1',
    attempt: 1,
    text: '\n\nFirst line\u001b[2J\n\n\nSecond line\n',
  },
  'agent.tool': { type: 'agent.tool', storyId: '1', attempt: 1, name: 'Bash', summary: 'rm x' },
  'sandbox.blocked': {
    type: 'sandbox.blocked',
    storyId: '1',
    attempt: 2,
    blocked: [
      { kind: 'network', target: 'example.com:443', count: 2 },
      { kind: 'write', target: '/etc/x', count: 1 },
    ],
  },
  'agent.notice': { type: 'agent.notice', storyId: '1', attempt: 1, text: 'API 429 retrying' },
  'agent.unrecognised': {
    type: 'agent.unrecognised',
    storyId: '1',
    attempt: 1,
    agent: 'claude',
    what: 'thought_summary',
    hint: 'upgrade ralphtool',
  },
  'agent.result': {
    type: 'agent.result',
    storyId: '1',
    attempt: 1,
    turns: 7,
    tokens: { input: 1000, output: 200, cacheRead: 400, cacheWrite: 100 },
    costUsd: 0.05,
    durationMs: 30_000,
    isError: true,
  },
  'attempt.failed': {
    type: 'attempt.failed',
    storyId: '1',
    attempt: 1,
    kind: 'verify-failed',
    reason: '`npm run lint` exited with code 1\nsee above',
    verify: [TOLERATED, { command: 'npm run lint', passed: false }],
  },
  'agent.limited': {
    type: 'agent.limited',
    storyId: '1',
    attempt: 1,
    kind: 'usage',
    source: 'exit 75',
    message: 'the agent exited with code 75',
    resetsAt: null,
    waitMs: 3_600_000,
  },
  'limit.resumed': { type: 'limit.resumed', storyId: '1', waitedMs: 90_000 },
  'tests.changed': {
    type: 'tests.changed',
    storyId: '1',
    attempt: 2,
    changes: [{ path: 'test/login.test.ts', kind: 'skipped', detail: '`.skip` added' }],
    allowedBy: 'flag',
  },
  'verify.flaky': {
    type: 'verify.flaky',
    storyId: '1',
    attempt: 2,
    command: 'npm test',
    failure: 'exit 1',
  },
  'story.blocked': {
    type: 'story.blocked',
    storyId: '1',
    attempt: 1,
    question: 'Which database?\nIt decides the migrations.',
  },
  'verify.baseline': {
    type: 'verify.baseline',
    results: [
      { command: 'npm test', passed: true },
      { command: 'npm run lint', passed: false },
    ],
  },
  'limit.reached': { type: 'limit.reached', limit: 'max-cost', message: 'the budget is spent' },
  'review.started': { type: 'review.started', round: 1, maxRounds: 2, reviewer: 'claude' },
  'review.finished': {
    type: 'review.finished',
    round: 1,
    verdict: 'rejected',
    reasons: 'the logout\nscenario is missing',
    scenarios: [
      {
        capability: 'auth',
        requirement: 'Login',
        scenario: 'Good password',
        met: true,
        note: 'test/login.test.ts',
      },
      {
        capability: 'auth',
        requirement: 'Logout',
        scenario: 'Session cleared',
        met: false,
        note: 'no code',
      },
      { capability: 'auth', requirement: 'Logout', scenario: 'Twice', met: null, note: '' },
    ],
    revertedRef: 'refs/ralphtool/c/attempts/review-1',
    costUsd: null,
    durationMs: 2000,
  },
  'tasks.out-of-scope': {
    type: 'tasks.out-of-scope',
    storyId: '1',
    attempt: 1,
    edits: [{ kind: 'ticked', storyId: '2', taskId: '2.1' }],
    savedRef: 'refs/ralphtool/add-auth/attempts/1-1',
  },
  'checkpoint.reverted': {
    type: 'checkpoint.reverted',
    storyId: '1',
    attempt: 1,
    toSha: '1234567890abcdef',
    savedRef: 'refs/ralphtool/add-auth/attempts/1-1',
  },
  'checkpoint.created': { type: 'checkpoint.created', storyId: '1', sha: 'fedcba9876543210' },
  'story.completed': {
    type: 'story.completed',
    storyId: '1',
    attempts: 2,
    costUsd: 0.1,
    durationMs: 95_000,
    verify: [TOLERATED],
  },
  'story.exhausted': { type: 'story.exhausted', storyId: '1', attempts: 3, reason: 'no store' },
  error: { type: 'error', message: 'git failed', fatal: true },
  'run.awaiting-choice': {
    type: 'run.awaiting-choice',
    outcome: 'complete',
    options: ['cleanup', 'keep'],
  },
  'run.forced': {
    type: 'run.forced',
    branch: 'ralph/add-auth',
    oldSha: 'b'.repeat(40),
    savedRef: 'refs/ralphtool/add-auth/forced',
    attemptRefs: 0,
  },
  'claim.taken': { type: 'claim.taken', remote: 'origin' },
  'claim.lost': { type: 'claim.lost', remote: 'origin', holder: 'runner-9' },
  'remote.pushed': { type: 'remote.pushed', remote: 'origin', refs: 2 },
  'remote.push-failed': {
    type: 'remote.push-failed',
    remote: 'origin',
    message: 'unreachable',
    failures: 1,
    retryInMs: 5000,
    refspecs: [],
  },
  'run.finished': {
    type: 'run.finished',
    outcome: 'complete',
    choice: 'keep',
    branch: 'ralph/add-auth',
    originalBranch: 'main',
    storiesCompleted: 1,
    storiesTotal: 1,
    costUsd: 0.1,
    durationMs: 95_000,
  },
};

// The summary as the presenters pass it: story 1 started, and its agent reported a cost.
const context: ReadingContext = {
  agent: 'claude',
  summary: [SAMPLES['story.started'], SAMPLES['agent.result']].reduce(
    (summary, event) => summarize(summary, event, NOW),
    summarize(emptySummary, started, NOW),
  ),
  now: NOW,
};

/** Each line as `tone|transcript|stream` (the stream `=` when it says the same, `-` when nothing). */
function said(reading: EventReading): string[] {
  return reading.lines.map((l) => {
    const stream = l.stream === undefined ? '=' : l.stream === null ? '-' : l.stream;
    return `${l.tone}|${l.text}|${stream}`;
  });
}

const until = clockTime(Date.parse('2026-11-28T15:00:00.000Z'), NOW);
const waitEnd = clockTime(NOW + 3_600_000, NOW);

/** What each kind of event says, under which story. */
const EXPECTED: Record<RunEventType, { storyId: string | null; lines: string[] }> = {
  'run.started': { storyId: null, lines: [] },
  'resolve.started': {
    storyId: '2',
    lines: [
      'notice|⇆ collides with your work tree in src/app.ts, README.md: this story brings the branch onto it (--resolve-conflicts)|⇆ the work collides with your work tree in src/app.ts, README.md: story 2 (Bring this change onto your work tree) brings the branch onto it (--resolve-conflicts)',
    ],
  },
  'resolve.dropped': {
    storyId: '2',
    lines: [
      'warning|✗ not brought onto your work tree: 3 attempts failed (conflict-markers); the branch is back where it was|✗ story 2 did not bring the branch onto your work tree (3 attempts failed (conflict-markers)): the branch is back where it was, the work kept on it',
    ],
  },
  'story.started': { storyId: '1', lines: [] },
  'agent.switched': {
    storyId: '1',
    lines: [
      `notice|⇄ claude is at its usage limit until ${until}: going on with codex at once|⇄ claude is at its usage limit until ${until}: story 1 goes on with codex (model gpt-5) at once; the attempt does not count`,
    ],
  },
  'agent.message': {
    storyId: '1',
    lines: ['text|First line|First line', 'text||-', 'text|Second line|-'],
  },
  'agent.tool': { storyId: '1', lines: ['tool|Bash rm x|='] },
  'agent.notice': { storyId: '1', lines: ['notice|⟳ API 429 retrying|='] },
  'sandbox.blocked': {
    storyId: '1',
    lines: [
      'notice|⛔ the sandbox refused: a connection to example.com:443 (2×), a write to /etc/x|⛔ Story 1, attempt 2: the sandbox refused: a connection to example.com:443 (2×), a write to /etc/x',
    ],
  },
  'agent.unrecognised': {
    storyId: '1',
    lines: ['notice|⚠ unknown agent output (thought_summary): upgrade ralphtool|='],
  },
  'agent.result': {
    storyId: '1',
    lines: [
      'result|7 turns · 1500 in / 200 out tokens · $0.05 · 30s · agent reported an error|7 turns · 1500 in / 200 out tokens · $0.05 · error',
    ],
  },
  'attempt.failed': {
    storyId: '1',
    lines: [
      'failure|attempt 1 failed (verify-failed): `npm run lint` exited with code 1 see above|=',
      `notice|${TOLERATED_NOTE}|=`,
    ],
  },
  'agent.limited': {
    storyId: '1',
    lines: [
      `notice|⏸ usage limit (exit 75): the agent exited with code 75 · waiting 1h00m|⏸ waiting 1h00m, until ${waitEnd}: usage limit (exit 75): the agent exited with code 75; the attempt does not count`,
    ],
  },
  'limit.resumed': {
    storyId: '1',
    lines: ['note|▶ waited 1m30s|▶ the wait is over (1m30s): trying story 1 again'],
  },
  'tests.changed': {
    storyId: '1',
    lines: [
      'notice|⚠ attempt 2 changed tests, allowed by --allow-test-changes: test/login.test.ts: `.skip` added|=',
    ],
  },
  'verify.flaky': {
    storyId: '1',
    lines: [
      'notice|⟳ flaky: `npm test` failed, then passed when run again (counted, not held against the attempt)|=',
    ],
  },
  'story.blocked': {
    storyId: '1',
    lines: [
      'notice|? Which database? It decides the migrations.|? Story 1 asks: Which database? It decides the migrations.',
    ],
  },
  'verify.baseline': {
    storyId: null,
    lines: [
      'note|verify baseline: npm test passes|=',
      'notice|verify baseline: npm run lint fails before the run: not blocking until it passes once|=',
    ],
  },
  'limit.reached': { storyId: null, lines: [] },
  'review.started': {
    storyId: null,
    lines: ['notice|⚖ independent review, round 1 of 2, by claude (read-only)|='],
  },
  'review.finished': {
    storyId: null,
    lines: [
      'note|✓ met: Login / Good password: test/login.test.ts|=',
      'failure|✗ not met: Logout / Session cleared: no code|=',
      'notice|? not judged: Logout / Twice|=',
      'warning|⚠ the reviewer changed files: reverted (saved under refs/ralphtool/c/attempts/review-1)|=',
      'failure|✗ the review rejected the change (— · 2s): the logout scenario is missing|=',
    ],
  },
  'tasks.out-of-scope': {
    storyId: '1',
    lines: [
      'warning|attempt 1 edited other stories in tasks.md: ticked 2.1; undone in the checkpoint (its tasks.md is saved as refs/ralphtool/add-auth/attempts/1-1)|=',
    ],
  },
  'checkpoint.reverted': {
    storyId: '1',
    lines: [
      'note|↺ work reverted to 12345678 (saved as refs/ralphtool/add-auth/attempts/1-1)|↺ reverted to 12345678; attempt saved as refs/ralphtool/add-auth/attempts/1-1',
    ],
  },
  'checkpoint.created': { storyId: '1', lines: ['note|● checkpoint fedcba98|='] },
  'story.completed': {
    storyId: '1',
    lines: [
      'success|✓ story done after 2 attempts|✓ Story 1 done · 2 attempts · $0.10 · 1m35s',
      `notice|${TOLERATED_NOTE}|=`,
    ],
  },
  'story.exhausted': { storyId: '1', lines: [] },
  error: { storyId: null, lines: [] },
  'run.awaiting-choice': { storyId: null, lines: [] },
  'run.forced': { storyId: null, lines: [] },
  'claim.taken': { storyId: null, lines: [] },
  'claim.lost': { storyId: null, lines: [] },
  'remote.pushed': { storyId: null, lines: [] },
  'remote.push-failed': { storyId: null, lines: [] },
  'run.finished': { storyId: null, lines: [] },
};

describe('the shared reading of the loop’s events', () => {
  it.each(Object.entries(SAMPLES))('reads %s', (type, event) => {
    const reading = readEvent(event, context);
    expect({ storyId: reading.storyId, lines: said(reading) }).toEqual(
      EXPECTED[type as RunEventType],
    );
  });

  it('has a sample of every kind of event, and no other', () => {
    // SAMPLES has a key per RunEventType, so tsc checks the kinds; this checks the table.
    for (const [type, event] of Object.entries(SAMPLES)) expect(event.type).toBe(type);
    expect(Object.keys(EXPECTED).sort()).toEqual(Object.keys(SAMPLES).sort());
  });

  it('shows outside line breaks with the presenter’s joiner', () => {
    const reading = readEvent(SAMPLES['story.blocked'], { ...context, joiner: ' | ' });
    expect(reading.lines[0]?.stream).toBe(
      '? Story 1 asks: Which database? | It decides the migrations.',
    );
  });

  it('says a revert of a running attempt was the user stopping it', () => {
    const reading = readEvent(SAMPLES['checkpoint.reverted'], { ...context, stopped: true });
    expect(reading.lines[0]?.text).toBe(
      '↺ stopped; work reverted to 12345678 (saved as refs/ralphtool/add-auth/attempts/1-1)',
    );
  });

  it('cuts to the line only what carries outside text; an agent’s error is said nearly whole', () => {
    const cut = (event: RunEvent): string[] => readEvent(event, context).lines.map((l) => l.cut);
    expect(cut(SAMPLES['attempt.failed'])).toEqual(['line', 'line']);
    expect(cut({ ...SAMPLES['attempt.failed'], kind: 'agent-error', verify: [] })).toEqual([
      'long',
    ]);
    expect(cut(SAMPLES['agent.unrecognised'])).toEqual(['long']);
    expect(cut(SAMPLES['checkpoint.reverted'])).toEqual(['never']);
    expect(cut(SAMPLES['agent.result'])).toEqual(['never']);
  });

  it('a story whose agent reports no cost shows its tokens and "cost —"', () => {
    let summary: RunSummary = summarize(emptySummary, started, NOW);
    summary = summarize(summary, SAMPLES['story.started'], NOW);
    summary = summarize(summary, { ...SAMPLES['agent.result'], costUsd: null }, NOW);
    const reading = readEvent(
      { ...SAMPLES['story.completed'], costUsd: null },
      {
        ...context,
        summary,
      },
    );
    expect(reading.lines[0]?.stream).toBe(
      '✓ Story 1 done · 2 attempts · 1.7k tokens · cost — · 1m35s',
    );
  });

  it('a limit that is over sends the story back to the preferred agent', () => {
    const back = {
      ...SAMPLES['agent.switched'],
      reason: 'reset' as const,
      kind: null,
      until: null,
    };
    const line = readEvent(back, context).lines[0];
    expect(line?.text).toBe("⇄ codex's limit is over: back to codex");
    expect(line?.stream).toBe("⇄ codex's limit is over: story 1 goes back to codex (model gpt-5)");
  });
});
