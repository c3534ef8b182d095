import { describe, expect, it } from 'vitest';
import {
  allSecrets,
  dotenvSecretsOf,
  redact,
  secretsOf,
  secretWrittenIn,
} from '../../src/core/redact.js';

// The one redactor (core/redact.ts): each kind of secret it knows, as it appears in text.

describe('the secrets ralphtool can see', () => {
  it('takes variables named like secrets, and the password of a URL in any variable', () => {
    const secrets = secretsOf({
      GH_TOKEN: 'ghs_longenough123',
      HOME: '/home/someone-with-a-long-name',
      SHORT_KEY: 'abc',
      DATABASE_URL: 'postgres://app:pw-9@db/app',
      REDIS: 'redis://:hunter22@cache:6379',
    });
    expect(secrets).toEqual(
      expect.arrayContaining([
        { name: 'GH_TOKEN', value: 'ghs_longenough123' },
        { name: 'DATABASE_URL password', value: 'pw-9' },
        { name: 'REDIS password', value: 'hunter22' },
      ]),
    );
    expect(secrets.map((s) => s.name)).not.toContain('HOME');
    expect(secrets.map((s) => s.name)).not.toContain('SHORT_KEY');
  });

  it('reads dotenv values as the programs reading them do: quotes off, comments cut, export', () => {
    const text = [
      'export API_KEY="quoted value with spaces" # the console',
      "SINGLE='single-quoted-1'",
      'PLAIN=plain-value-22 # a note',
      'WITH_HASH=abc#not-a-comment-1',
      '# COMMENTED=never-read-123',
      'TINY=1',
      'URL=https://user:p4ss@example.com/x',
    ].join('\r\n');
    expect(
      dotenvSecretsOf(text, '.env')
        .map((s) => s.value)
        .sort(),
    ).toEqual(
      [
        'quoted value with spaces',
        'single-quoted-1',
        'plain-value-22',
        'abc#not-a-comment-1',
        'https://user:p4ss@example.com/x',
        'p4ss',
      ].sort(),
    );
  });
});

describe('redact', () => {
  it('replaces each value, longest first, naming where it came from', () => {
    const secrets = allSecrets(
      [{ name: 'A', value: 'abcdefgh' }],
      [{ name: 'B', value: 'abcdefgh-longer' }],
    );
    expect(redact('x abcdefgh-longer y abcdefgh', secrets)).toBe('x [redacted $B] y [redacted $A]');
  });

  it('replaces the common token shapes wherever they stand, known or not', () => {
    const shapes = [
      [`ghp_${'a'.repeat(36)}`, 'a GitHub token'],
      [`github_pat_${'A1_'.repeat(20)}`, 'a GitHub token'],
      [`sk-ant-api03-${'x'.repeat(40)}`, 'an Anthropic key'],
      [`sk-proj-${'y'.repeat(40)}`, 'an OpenAI key'],
      [`AIza${'z'.repeat(35)}`, 'a Google API key'],
      ['xoxb-1234567890-abcdefghij', 'a Slack token'],
      ['AKIAIOSFODNN7EXAMPLE', 'an AWS access key id'],
      [`npm_${'n'.repeat(36)}`, 'an npm token'],
    ] as const;
    for (const [token, what] of shapes) {
      expect(redact(`use ${token} now`, [])).toBe(`use [redacted: ${what}] now`);
    }
  });

  it('replaces the password of any URL in the text, and leaves URLs without one alone', () => {
    expect(redact('clone https://bot:t0ken@git.example.com/r.git', [])).toBe(
      'clone https://bot:[redacted]@git.example.com/r.git',
    );
    expect(redact('see https://example.com/a:b@c and mailto:me@example.com', [])).toBe(
      'see https://example.com/a:b@c and mailto:me@example.com',
    );
  });
});

describe('secretWrittenIn', () => {
  const secrets = allSecrets(
    secretsOf({ DEPLOY_TOKEN: 'tok-0123456789', DATABASE_URL: 'postgres://app:pa55word99@db/x' }),
    dotenvSecretsOf('HOST=db.internal.example\nSTRIPE_KEY=sk_live_abcdefgh\n', '.env'),
  );

  it('finds a value whose name says secret, and a URL password, naming it', () => {
    expect(secretWrittenIn('const t = "tok-0123456789";', secrets)?.name).toBe('DEPLOY_TOKEN');
    expect(secretWrittenIn('key: sk_live_abcdefgh', secrets)?.name).toBe('STRIPE_KEY');
    expect(secretWrittenIn('password = "pa55word99"', secrets)?.name).toBe('DATABASE_URL password');
  });

  it('leaves a dotenv value whose name says nothing secret, and made-up token shapes', () => {
    expect(secretWrittenIn('host: db.internal.example', secrets)).toBeNull();
    expect(secretWrittenIn(`fixture: ghp_${'a'.repeat(36)}`, secrets)).toBeNull();
  });
});
