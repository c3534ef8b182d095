import { describe, expect, it } from 'vitest';
import { parseSettingsFile } from '../../../src/cli/settings/settings-file.js';
import { UsageError } from '../../../src/core/errors.js';

const FILE = '/repo/.ralphtool/config.yaml';
const parse = (text: string) => parseSettingsFile(text, FILE, 'repository');

/** The one line the user is told, or null when the file is accepted. */
function refusal(text: string): string | null {
  try {
    parse(text);
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as UsageError).message;
  }
}

describe('a settings file', () => {
  it('gives each key in the flag form, with its line', () => {
    const file = parse(
      [
        '# the team settings',
        'agent: codex',
        'model: gpt-5',
        'max-retries: 5',
        'max-cost: 2.50',
        'agent-timeout: 90',
        'verify:',
        '  - npm test',
        '  - npm run lint',
        'notify-url: https://ntfy.sh/topic',
        'parallel: 4',
      ].join('\n'),
    );
    expect(Object.fromEntries(file.values)).toEqual({
      agent: { value: 'codex', line: 2 },
      model: { value: 'gpt-5', line: 3 },
      'max-retries': { value: '5', line: 4 },
      'max-cost': { value: '2.50', line: 5 },
      'agent-timeout': { value: '90', line: 6 },
      verify: { value: ['npm test', 'npm run lint'], line: 7 },
      'notify-url': { value: ['https://ntfy.sh/topic'], line: 10 },
      parallel: { value: '4', line: 11 },
    });
  });

  it('takes an empty file, a comment-only file and an empty list', () => {
    expect(parse('').values.size).toBe(0);
    expect(parse('# nothing yet\n').values.size).toBe(0);
    expect(parse('verify: []\n').values.get('verify')?.value).toEqual([]);
  });

  it.each([
    // each kind of mistake: the file, the line, the key and the flag's own words
    ['max-retries: lots', `${FILE}:1: max-retries: "lots" is not a whole number >= 0`],
    [
      'agent: gpt',
      `${FILE}:1: agent: "gpt" is not one of claude, codex, opencode, gemini, command`,
    ],
    [
      '\nagent-timeout: soon',
      `${FILE}:2: agent-timeout: "soon" is not a duration: use e.g. 90s, 15m, 2h or seconds`,
    ],
    ['max-cost: 0', `${FILE}:1: max-cost: must be greater than 0`],
    [
      'parallel: 40',
      `${FILE}:1: parallel: "40" is not a whole number from 1 to 16 (each run is an agent at work; 2 is the default)`,
    ],
    ['on-complete: later', `${FILE}:1: on-complete: "later" is not one of ask, cleanup, keep`],
    [
      'notify-url: ftp://x',
      `${FILE}:1: notify-url: only http and https URLs are posted to (this one is ftp:): use e.g. https://ntfy.sh/my-topic`,
    ],
    ['verify:\n  - npm test\n  - "  "', `${FILE}:3: verify: the command is empty`],
    ['model: ""', `${FILE}:1: model: empty name`],
    ['model:', `${FILE}:1: model: has no value`],
    ['agent: [claude]', `${FILE}:1: agent: expected one value, not a list`],
    ['verify: {a: b}', `${FILE}:1: verify: expected a text or a list of texts`],
    ['max-retries: true', `${FILE}:1: max-retries: true is not a value this setting takes`],
    ['agent: claude\nagnet: codex', `${FILE}:2: unknown setting "agnet" (did you mean agent?)`],
    ['--verify: npm test', `${FILE}:1: unknown setting "--verify" (did you mean verify?)`],
    ['maxRetries: 2', `${FILE}:1: unknown setting "maxRetries" (did you mean max-retries?)`],
    ['colour: red', `${FILE}:1: unknown setting "colour": the settings are agent,`],
    [
      'force: true',
      `${FILE}:1: "force" is not a setting: reusing a branch is a decision about one run: pass --force`,
    ],
    ['agent: claude\nagent: codex', `${FILE}:2: not valid YAML: Map keys must be unique`],
    ['verify: [npm test', `${FILE}:1: not valid YAML:`],
    ['- agent', `${FILE}:1: the settings are keys with values, one a line (agent: claude)`],
  ])('%j is refused: %s', (text, message) => {
    const said = refusal(text);
    expect(said).not.toBeNull();
    expect(said?.startsWith(message) ?? false, said ?? '').toBe(true);
    expect(said).not.toContain('\n');
  });
});
