import { describe, expect, it } from 'vitest';
import { sanitizeForTerminal } from '../../src/format/sanitize.js';

describe('sanitizeForTerminal', () => {
  it('removes colour, cursor and title escape sequences', () => {
    expect(sanitizeForTerminal('\u001b[31mred\u001b[0m \u001b[2J\u001b[Hx')).toBe('red x');
    expect(sanitizeForTerminal('\u001b]0;evil title\u0007after')).toBe('after');
  });

  it('shows other control characters as replacement marks, keeps newlines and tabs', () => {
    expect(sanitizeForTerminal('a\u0000b\u0008c\td\r\ne')).toBe('a�b�c\td\ne');
    expect(sanitizeForTerminal('bare\rreturn')).toBe('bare�return');
  });
});
