import { describe, expect, it } from 'vitest';
import {
  continueIntent,
  INTENT_FLAGS,
  INTENT_KEYS,
  type RunIntent,
} from '../../src/core/run-intent.js';

// docs/contract.md, "The run's intent": a continuation goes on with what the run was started
// with; only a flag given on its own command line replaces a part.

const RECORDED: RunIntent = {
  agent: 'command',
  agentCommand: './agent.sh --fast',
  model: 'fast-1',
  maxRetries: 5,
  agentTimeoutMs: 600_000,
  idleTimeoutMs: 60_000,
  verify: ['npm test', 'npm run lint'],
  verifyTimeoutMs: 120_000,
  verifyStrict: true,
  allowTestChanges: true,
  onLimit: 'stop',
  maxWaitMs: 3_600_000,
  review: 'command',
  reviewCommand: './review.sh',
  maxReviewRounds: 3,
  sandbox: true,
  allowHosts: ['registry.npmjs.org'],
  sandboxDenyRead: ['~/.config/mytool'],
  pauseAt: 90,
  resolveConflicts: true,
};

/** What `resume` without flags resolves to: every default. */
const DEFAULTS: RunIntent = {
  agent: 'claude',
  agentCommand: null,
  model: null,
  maxRetries: 3,
  agentTimeoutMs: 3_600_000,
  idleTimeoutMs: 900_000,
  verify: [],
  verifyTimeoutMs: 600_000,
  verifyStrict: false,
  allowTestChanges: false,
  onLimit: 'wait',
  maxWaitMs: 28_800_000,
  review: null,
  reviewCommand: null,
  maxReviewRounds: 2,
  sandbox: false,
  allowHosts: [],
  sandboxDenyRead: [],
  pauseAt: null,
  resolveConflicts: false,
};

describe('continueIntent', () => {
  it('keeps every recorded part when no flag is given (the defaults do not replace it)', () => {
    const { intent, changes } = continueIntent(RECORDED, DEFAULTS, new Set());
    expect(intent).toEqual(RECORDED);
    expect(changes).toEqual([]);
  });

  it('replaces each part a flag gives, one change each, and keeps the rest', () => {
    for (const key of INTENT_KEYS) {
      if (key === 'agent') continue; // below: a new agent brings its own command and model
      const { intent, changes } = continueIntent(RECORDED, DEFAULTS, new Set([key]));
      expect(intent).toEqual({ ...RECORDED, [key]: DEFAULTS[key] });
      expect(changes).toEqual([
        { key, flag: INTENT_FLAGS[key], was: RECORDED[key], now: DEFAULTS[key] },
      ]);
    }
  });

  it('a flag that gives the recorded value changes nothing and says nothing', () => {
    const current = { ...DEFAULTS, verify: [...RECORDED.verify], maxRetries: 5 };
    const { intent, changes } = continueIntent(
      RECORDED,
      current,
      new Set(['verify', 'maxRetries'] as const),
    );
    expect(intent).toEqual(RECORDED);
    expect(changes).toEqual([]);
  });

  it('a new agent brings its own command and model: the recorded ones were the old agent’s', () => {
    const current = { ...DEFAULTS, agent: 'codex', model: null };
    const { intent, changes } = continueIntent(RECORDED, current, new Set(['agent'] as const));
    expect(intent).toMatchObject({ agent: 'codex', agentCommand: null, model: null });
    expect(intent.verify).toEqual(RECORDED.verify);
    expect(changes.map((c) => c.flag)).toEqual(['--agent', '--agent-command', '--model']);
  });

  it('the same agent named again keeps its recorded command', () => {
    const current = { ...DEFAULTS, agent: 'command', agentCommand: null };
    const { intent } = continueIntent(RECORDED, current, new Set(['agent'] as const));
    expect(intent.agentCommand).toBe(RECORDED.agentCommand);
  });
});
