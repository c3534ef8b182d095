import { describe, expect, it } from 'vitest';
import { unrecognisedHint } from '../../src/agents/unrecognised.js';

describe('the hint of agent.unrecognised', () => {
  it('names Claude Code’s version when its stream said it, and the version ralphtool knows', () => {
    expect(unrecognisedHint('claude', '2.9.0')).toBe(
      "Claude Code 2.9.0 printed lines this ralphtool does not know; they are skipped and the attempt goes on: if the agent's work is misread, upgrade ralphtool, or pin Claude Code to 2.1.197, the version this ralphtool knows",
    );
    expect(unrecognisedHint('claude')).toMatch(/^Claude Code printed lines /);
  });

  it('says to pin an agent without a known version to the one used before', () => {
    expect(unrecognisedHint('codex')).toBe(
      "Codex printed lines this ralphtool does not know; they are skipped and the attempt goes on: if the agent's work is misread, upgrade ralphtool, or pin Codex to the version you used before",
    );
    // A backend ralphtool has no product name for is named as it is.
    expect(unrecognisedHint('newagent')).toMatch(/^newagent printed lines .* pin newagent to /);
  });
});
