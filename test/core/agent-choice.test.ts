import { describe, expect, it } from 'vitest';
import {
  activeLimits,
  chooseAgent,
  firstToReset,
  SWITCHING_KINDS,
  type AgentLimitRecord,
} from '../../src/core/agent-choice.js';
import { limitWaitMs, RESET_MARGIN_MS } from '../../src/core/limit-wait.js';

// Which agent runs the next attempt with fallback agents (docs/contract.md, "Fallback agents").

const NOW = Date.parse('2026-11-28T12:00:00.000Z');
const ORDER = [
  { agent: 'claude', model: null },
  { agent: 'codex', model: 'gpt-x' },
  { agent: 'command', model: null },
];

function limitedUntil(iso: string): AgentLimitRecord {
  return { until: iso, kind: 'usage', source: 'test', message: 'limited', resetsAt: null };
}

describe('chooseAgent', () => {
  it('takes the first agent of the order that is not limited now', () => {
    expect(chooseAgent(ORDER, {}, NOW)?.agent).toBe('claude');
    const claudeLimited = { claude: limitedUntil('2026-11-28T13:00:00.000Z') };
    expect(chooseAgent(ORDER, claudeLimited, NOW)).toEqual({ agent: 'codex', model: 'gpt-x' });
    const both = { ...claudeLimited, codex: limitedUntil('2026-11-28T12:30:00.000Z') };
    expect(chooseAgent(ORDER, both, NOW)?.agent).toBe('command');
  });

  it('goes back to the primary once its limit has passed (a limit ending exactly now is over)', () => {
    const limited = { claude: limitedUntil('2026-11-28T12:00:00.000Z') };
    expect(chooseAgent(ORDER, limited, NOW)?.agent).toBe('claude');
    expect(chooseAgent(ORDER, limited, NOW - 1)?.agent).toBe('codex');
  });

  it('is null when every agent is limited; firstToReset names the one whose limit ends first', () => {
    const all = {
      claude: limitedUntil('2026-11-28T14:00:00.000Z'),
      codex: limitedUntil('2026-11-28T12:05:00.000Z'),
      command: limitedUntil('2026-11-28T13:00:00.000Z'),
    };
    expect(chooseAgent(ORDER, all, NOW)).toBeNull();
    expect(firstToReset(ORDER, all)?.agent).toBe('codex');
    expect(firstToReset(ORDER, {})).toBeNull();
  });

  it('activeLimits drops the limits that are over', () => {
    const limited = {
      claude: limitedUntil('2026-11-28T11:59:59.000Z'),
      codex: limitedUntil('2026-11-28T12:00:01.000Z'),
    };
    expect(Object.keys(activeLimits(limited, NOW))).toEqual(['codex']);
  });

  it('only usage and rate limits switch agents; transient API errors do not', () => {
    expect([...SWITCHING_KINDS].sort()).toEqual(['rate', 'usage']);
  });
});

describe('limitWaitMs (how long a limited agent is not tried)', () => {
  it('is the reset plus the margin, else the backoff by limits in a row', () => {
    const resetsAt = new Date(NOW + 60_000).toISOString();
    expect(limitWaitMs({ kind: 'usage', resetsAt, consecutive: 1, now: NOW })).toBe(
      60_000 + RESET_MARGIN_MS,
    );
    expect(limitWaitMs({ kind: 'rate', resetsAt: null, consecutive: 1, now: NOW })).toBe(60_000);
    expect(limitWaitMs({ kind: 'rate', resetsAt: null, consecutive: 3, now: NOW })).toBe(240_000);
  });
});
