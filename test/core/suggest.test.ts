import { describe, expect, it } from 'vitest';
import { closestName, didYouMean, editDistance } from '../../src/core/suggest.js';

const COMMANDS = ['list', 'show', 'run', 'resume', 'finish', 'status', 'demo', 'doctor'];

describe('did you mean', () => {
  it('counts insertions, deletions, substitutions and swapped neighbours as one edit each', () => {
    expect(editDistance('lst', 'list')).toBe(1);
    expect(editDistance('lisst', 'list')).toBe(1);
    expect(editDistance('lust', 'list')).toBe(1);
    expect(editDistance('shwo', 'show')).toBe(1);
    expect(editDistance('', 'run')).toBe(3);
    expect(editDistance('same', 'same')).toBe(0);
  });

  it('suggests the command a typo was meant to be', () => {
    expect(closestName('lst', COMMANDS)).toBe('list');
    expect(closestName('shwo', COMMANDS)).toBe('show');
    expect(closestName('rn', COMMANDS)).toBe('run');
    expect(closestName('stauts', COMMANDS)).toBe('status');
    expect(closestName('finsh', COMMANDS)).toBe('finish');
    expect(closestName('Doctor', COMMANDS)).toBe('doctor');
  });

  it('suggests a change name one or two typos away, the closest first', () => {
    const changes = ['add-thing', 'add-things', 'fix-login'];
    expect(closestName('add-thng', changes)).toBe('add-thing');
    expect(closestName('add-thigns', changes)).toBe('add-things');
    expect(closestName('fix-logn', changes)).toBe('fix-login');
  });

  it('suggests nothing for a word far from every name, or when there are none', () => {
    expect(closestName('x', COMMANDS)).toBeNull();
    expect(closestName('deploy', COMMANDS)).toBeNull();
    expect(closestName('add-thing', [])).toBeNull();
    expect(didYouMean('zzz', COMMANDS)).toBe('');
    expect(didYouMean('lst', COMMANDS)).toBe(' (did you mean list?)');
  });
});
