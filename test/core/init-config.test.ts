import { describe, expect, it } from 'vitest';
import { parseSettingsFile } from '../../src/cli/settings/settings-file.js';
import { INIT_AGENTS, initConfigText, type InitFacts } from '../../src/core/init-config.js';

// docs/contract.md, "`init`": the file `ralphtool init` writes is settings a run accepts, for
// every machine it may find.

const FILE = '/repo/.ralphtool/config.yaml';

/** Every subset of the agents, each with and without an inferred verify command. */
function everyMachine(): InitFacts[] {
  const machines: InitFacts[] = [];
  for (let mask = 0; mask < 1 << INIT_AGENTS.length; mask++) {
    const agents = INIT_AGENTS.filter((_, i) => (mask & (1 << i)) !== 0).map((agent) => ({
      agent,
      version: mask % 3 === 0 ? null : `1.${mask}.0 (${agent})`,
    }));
    machines.push({ agents, verify: { commands: [], from: [] } });
    machines.push({
      agents,
      verify: {
        commands: ['pnpm test', 'cargo test'],
        from: ['package.json', 'pnpm-lock.yaml', 'Cargo.toml'],
      },
    });
  }
  return machines;
}

describe('the config.yaml ralphtool init writes', () => {
  it('is a valid settings file that sets the first agent found and the inferred verify commands', () => {
    for (const facts of everyMachine()) {
      const text = initConfigText(facts);
      const values = Object.fromEntries(
        [...parseSettingsFile(text, FILE, 'repository').values].map(([name, v]) => [name, v.value]),
      );
      const expected: Record<string, unknown> = {};
      if (facts.agents[0]) expected.agent = facts.agents[0].agent;
      if (facts.verify.commands.length > 0) expected.verify = facts.verify.commands;
      expect(values, text).toEqual(expected);
    }
  });

  it('says why: where the agent and the verify commands come from, and what else may be set', () => {
    const text = initConfigText({
      agents: [
        { agent: 'codex', version: 'codex-cli 0.171.0' },
        { agent: 'gemini', version: null },
      ],
      verify: { commands: ['npm test'], from: ['package.json'] },
    });
    expect(text).toContain('# The agent: codex (codex-cli 0.171.0) was found. Also found: gemini.');
    expect(text).toContain('(inferred from package.json)');
    for (const key of ['model', 'max-retries', 'max-cost', 'max-duration', 'notify-url']) {
      expect(text).toMatch(new RegExp(`^# ${key}:`, 'm'));
    }
    const none = initConfigText({ agents: [], verify: { commands: [], from: [] } });
    expect(none).toContain('No agent was found');
    expect(none).toMatch(/^# verify:$/m);
  });
});
