import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { errnoCode, messageOf } from '../../src/core/error-details.js';

describe('error details', () => {
  it('reads the errno name of a real system error', () => {
    let caught: unknown;
    try {
      readFileSync('/nonexistent/ralphtool/file');
    } catch (error) {
      caught = error;
    }
    expect(errnoCode(caught)).toBe('ENOENT');
    expect(messageOf(caught)).toMatch(/no such file or directory/);
  });

  it('has no errno name for other thrown values', () => {
    expect(errnoCode(new Error('plain'))).toBeUndefined();
    expect(errnoCode({ code: 42 })).toBeUndefined();
    expect(errnoCode(null)).toBeUndefined();
    expect(errnoCode('ENOENT')).toBeUndefined();
  });

  it('gives the message of an Error, and anything else as text', () => {
    expect(messageOf(new TypeError('bad type'))).toBe('bad type');
    expect(messageOf('a string')).toBe('a string');
    expect(messageOf(7)).toBe('7');
  });
});
