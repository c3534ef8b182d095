import { afterEach, describe, expect, it } from 'vitest';
import { LoopHarness } from '../support/loop-harness.js';
import type { AgentFormat } from '../support/fake-agent-script.mjs';
import { printed } from '../support/plain-output.js';
import { ofType, single, stories } from './helpers.js';

// The loop and a question (contract "Questions"): BLOCKED parks the run, uncounted.

const CHANGE = 'asks-questions';
const QUESTION = 'Which database: Postgres or SQLite?';

let fixture: LoopHarness | undefined;
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
});

describe('the loop: a question parks the run', () => {
  for (const format of ['plain', 'claude', 'codex'] as const satisfies readonly AgentFormat[]) {
    it(`${format}: BLOCKED is not counted, reverted and saved, outcome blocked, no completion question`, async () => {
      fixture = new LoopHarness(CHANGE, stories(2)).scenario({
        '1-1': [
          { write: 'src/one.txt', content: 'one\n' },
          { tick: 'all' },
          { signal: 'COMPLETE' },
        ],
        '2-1': [
          { write: 'src/half.txt', content: 'half-way\n' },
          { say: 'I need a decision.' },
          { signal: `BLOCKED: ${QUESTION}` },
        ],
      });
      const f = fixture;
      const result = await f.run({ maxRetries: 0, completion: 'keep', format });
      expect(result.outcome).toBe('blocked');
      expect(result.exitCode).toBe(4);
      expect(result.asked).toEqual([]);
      expect(result.choice).toBeNull();
      const events = result.events();
      expect(ofType(events, 'attempt.failed')).toEqual([]);
      expect(ofType(events, 'run.awaiting-choice')).toEqual([]);
      expect(single(events, 'story.blocked')).toMatchObject({
        storyId: '2',
        attempt: 1,
        question: QUESTION,
      });
      expect(single(events, 'run.finished')).toMatchObject({
        outcome: 'blocked',
        choice: null,
        question: { storyId: '2', text: QUESTION },
      });
      // Reverted to checkpoint 1, the attempt saved under its ref.
      expect(f.exists('src/half.txt')).toBe(false);
      expect(f.exists('src/one.txt')).toBe(true);
      expect(f.subjects(`main..ralph/${CHANGE}`)).toEqual(['initial state', 'checkpoint: 1']);
      expect(f.git('show', `refs/ralphtool/${CHANGE}/attempts/2-1:src/half.txt`)).toBe(
        'half-way\n',
      );
      // Recorded: not counted (max-retries 0 would have exhausted it), the question kept open.
      const state = f.state() as {
        status: string;
        outcome: string;
        pid: number | null;
        stories: Record<string, { attempts: number; lastFailure: unknown }>;
        question: Record<string, unknown>;
      };
      expect(state).toMatchObject({ status: 'active', outcome: 'blocked', pid: null });
      expect(state.stories['2']).toMatchObject({ attempts: 0, lastFailure: null });
      expect(state.question).toMatchObject({
        storyId: '2',
        attempt: 1,
        text: QUESTION,
        answer: null,
      });
      expect(Number.isNaN(Date.parse(String(state.question.askedAt)))).toBe(false);
    });
  }

  it('headless: the progress lines and the summary say the question and the command that answers it', async () => {
    fixture = new LoopHarness(CHANGE, stories(1)).scenario({
      '1-1': [{ signal: `BLOCKED: ${QUESTION}\nIt decides the migrations.` }],
    });
    const result = await fixture.run({ maxRetries: 0, completion: 'keep' });
    const out = printed(result.events());
    expect(out).toContain(`? Story 1 asks: ${QUESTION} | It decides the migrations.`);
    expect(out).toContain('blocked: a question waits for your answer');
    const summary = out.split('\n').find((line) => line.startsWith('blocked: story 1 asks:'));
    expect(summary).toContain(`${QUESTION} It decides the migrations.`);
    expect(summary).toContain(`\`ralphtool resume ${CHANGE} --answer "…"\``);
    expect(summary).toContain(`ralphtool finish ${CHANGE} --cleanup|--keep`);
  });

  for (const format of ['claude', 'codex'] as const) {
    it(`${format}: a BLOCKED only read in a tool result does not park the run`, async () => {
      fixture = new LoopHarness(CHANGE, stories(1)).scenario({
        '1-1': [
          { tick: 'all' },
          { git: ['log', '-1', `--format=<promise>BLOCKED: ${QUESTION}</promise>`] },
          { say: 'Done.' },
          { signal: 'COMPLETE' },
        ],
      });
      const result = await fixture.run({ maxRetries: 0, completion: 'keep', format });
      expect(result.outcome).toBe('complete');
      expect(ofType(result.events(), 'story.blocked')).toEqual([]);
    });
  }

  it('an agent that prints its prompt back does not block by accident', async () => {
    fixture = new LoopHarness(CHANGE, stories(1)).scenario({
      '1-1': [{ echoPrompt: true }],
    });
    const result = await fixture.run({ maxRetries: 0, completion: 'keep' });
    const events = result.events();
    // The echo reached ralphtool as the agent's own output, BLOCKED instruction and all.
    expect(
      events.some((e) => e.type === 'agent.message' && e.text.includes('<promise>BLOCKED:')),
    ).toBe(true);
    expect(ofType(events, 'story.blocked')).toEqual([]);
    expect(single(events, 'attempt.failed')).toMatchObject({ kind: 'no-signal' });
    expect(result.outcome).toBe('max-retries');
  });
});
