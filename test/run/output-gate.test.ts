import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/core/events.js';
import { gateAgentChatter } from '../../src/run/output-gate.js';

const message = (text: string): RunEvent => ({
  type: 'agent.message',
  storyId: '1',
  attempt: 1,
  text,
});

describe('gateAgentChatter', () => {
  it('drops agent chatter while stdout is backed up, then says how much was left out', () => {
    const stream = { writableLength: 0 };
    const written: RunEvent[] = [];
    const emit = gateAgentChatter(stream, (e) => written.push(e));
    emit(message('a'));
    stream.writableLength = 10 * 1024 * 1024;
    emit(message('b'));
    emit({ type: 'agent.tool', storyId: '1', attempt: 1, name: 'Bash', summary: 'ls' });
    // Events that matter are never dropped.
    emit({ type: 'checkpoint.created', storyId: '1', sha: 'abc' });
    stream.writableLength = 0;
    emit(message('c'));
    expect(written.map((e) => (e.type === 'agent.message' ? e.text : e.type))).toEqual([
      'a',
      expect.stringContaining('2 agent line(s) not shown') as unknown,
      'checkpoint.created',
      'c',
    ]);
  });
});
