import { describe, expect, it } from 'vitest';
import { parseChoice, parseCount, parseDuration } from '../../src/cli/options.js';

describe('flag parsing', () => {
  it('parses durations in s, m, h, ms and plain seconds', () => {
    expect(parseDuration('90s', '--x')).toBe(90_000);
    expect(parseDuration('15m', '--x')).toBe(900_000);
    expect(parseDuration('2h', '--x')).toBe(7_200_000);
    expect(parseDuration('45', '--x')).toBe(45_000);
    expect(parseDuration('0', '--x')).toBe(0);
    expect(parseDuration('1.5m', '--x')).toBe(90_000);
  });

  it('rejects malformed durations with exit code 2 naming the flag', () => {
    for (const bad of ['', 'abc', '-5', '10 minutes', '5d']) {
      expect(() => parseDuration(bad, '--idle-timeout')).toThrow(/--idle-timeout/);
      try {
        parseDuration(bad, '--idle-timeout');
      } catch (error) {
        expect((error as { exitCode: number }).exitCode).toBe(2);
      }
    }
  });

  it('parses counts and choices', () => {
    expect(parseCount('0', '--max-retries')).toBe(0);
    expect(parseCount('7', '--max-retries')).toBe(7);
    expect(() => parseCount('-1', '--max-retries')).toThrow(/whole number/);
    expect(() => parseCount('2.5', '--max-retries')).toThrow(/whole number/);
    expect(parseChoice('keep', ['cleanup', 'keep'], '--on-complete')).toBe('keep');
    expect(() => parseChoice('ask-me', ['cleanup', 'keep'], '--on-complete')).toThrow(
      /not one of cleanup, keep/,
    );
  });
});
