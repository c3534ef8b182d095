import { describe, expect, it } from 'vitest';
import { mergeSettings, type SettingSource } from '../../../src/cli/settings/merge.js';
import { parseSettingsFile } from '../../../src/cli/settings/settings-file.js';
import type { RawRunFlags } from '../../../src/cli/run-flags.js';

const REPO = '/repo/.ralphtool/config.yaml';
const USER = '/home/u/.config/ralphtool/config.yaml';
const repo = (text: string) => parseSettingsFile(text, REPO, 'repository');
const user = (text: string) => parseSettingsFile(text, USER, 'user');
const at = (path: string, scope: 'repository' | 'user', line: number): SettingSource => ({
  kind: 'file',
  path,
  scope,
  line,
});

describe('the settings precedence: flag > repository > user > default', () => {
  it.each([
    // flag, repository, user → value, from
    ['7', '5', '4', '7', { kind: 'flag' }],
    [undefined, '5', '4', '5', at(REPO, 'repository', 1)],
    [undefined, undefined, '4', '4', at(USER, 'user', 1)],
    [undefined, undefined, undefined, undefined, { kind: 'default' }],
    ['7', undefined, '4', '7', { kind: 'flag' }],
  ] as const)('max-retries flag %s, repository %s, user %s → %s', (flag, r, u, value, from) => {
    const flags: RawRunFlags = flag === undefined ? {} : { maxRetries: flag };
    const files = [
      repo(r === undefined ? '' : `max-retries: ${r}`),
      user(u === undefined ? '' : `max-retries: ${u}`),
    ];
    const merged = mergeSettings(flags, files, 'start');
    expect(merged.flags.maxRetries).toBe(value);
    expect(merged.sources.get('max-retries')).toEqual(from);
  });

  it('a list is replaced whole, never joined: the highest place that gives it wins', () => {
    const merged = mergeSettings(
      {},
      [repo('verify:\n  - npm test'), user('verify: [make lint, make test]')],
      'start',
    );
    expect(merged.flags.verify).toEqual(['npm test']);
    const flagged = mergeSettings({ verify: ['just check'] }, [repo('verify: npm test')], 'start');
    expect(flagged.flags.verify).toEqual(['just check']);
  });

  it('the agent brings its own command and model: another agent’s are not taken', () => {
    const files = [
      repo('agent-command: ./team-agent.sh'),
      user('agent: codex\nmodel: gpt-5\nmax-cost: 3'),
    ];
    const merged = mergeSettings({}, files, 'start');
    expect(merged.flags).toEqual({ agentCommand: './team-agent.sh', maxCost: '3' });
    expect(merged.sources.get('agent')).toEqual(at(REPO, 'repository', 1));
    expect(merged.sources.get('model')).toEqual({ kind: 'default' });
    // A flag's agent: the files' command is another agent's.
    const flagged = mergeSettings({ agent: 'claude' }, files, 'start');
    expect(flagged.flags).toEqual({ agent: 'claude', maxCost: '3' });
    // The same agent keeps the file's model.
    const same = mergeSettings({ agent: 'codex' }, files, 'start');
    expect(same.flags).toEqual({ agent: 'codex', model: 'gpt-5', maxCost: '3' });
    // A model with no agent named goes with whatever agent runs, as a bare --model does.
    const bare = mergeSettings({ agent: 'gemini' }, [user('model: pro')], 'start');
    expect(bare.flags).toEqual({ agent: 'gemini', model: 'pro' });
  });

  it('fallback agents and their models come together from one place', () => {
    const merged = mergeSettings(
      { fallbackAgent: ['gemini'] },
      [repo('fallback-agent: [codex, opencode]\nfallback-model: [gpt-5, a/b]')],
      'start',
    );
    expect(merged.flags.fallbackAgent).toEqual(['gemini']);
    expect(merged.flags.fallbackModel).toBeUndefined();
  });

  it('a resume leaves every recorded part to the run’s record, and takes the rest', () => {
    const files = [
      repo(
        'agent: codex\nverify: npm test\nmax-cost: 5\nnotify-url: https://x.test/t\nfallback-agent: gemini\nmax-duration: 2h\ncommand-timeout: 60\non-complete: keep',
      ),
    ];
    const merged = mergeSettings({ maxRetries: '9' }, files, 'resume');
    expect(merged.flags).toEqual({
      maxRetries: '9',
      maxDuration: '2h',
      commandTimeout: '60',
      onComplete: 'keep',
    });
    expect(merged.sources.get('verify')).toEqual({ kind: 'default' });
  });

  it('leaves the flags that are not settings as they were', () => {
    const merged = mergeSettings(
      { json: true, force: true, all: true },
      [repo('parallel: 3')],
      'start',
    );
    expect(merged.flags).toEqual({ json: true, force: true, all: true, parallel: '3' });
  });
});
