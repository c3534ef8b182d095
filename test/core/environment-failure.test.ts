import { describe, expect, it } from 'vitest';
import { environmentFailure, userMessageOf } from '../../src/core/error-details.js';

function systemError(code: string, path?: string): Error {
  return Object.assign(new Error(`${code}: something, open '${path ?? ''}'`), {
    code,
    ...(path ? { path } : {}),
  });
}

describe('a file system failure the machine caused', () => {
  it('is one line naming it, the path and the fix', () => {
    expect(environmentFailure(systemError('ENOSPC', '/repo/.git/ralphtool/x/state.json'))).toBe(
      'no space left on the device (/repo/.git/ralphtool/x/state.json) [ENOSPC]: free some disk space, then `ralphtool status` says where the run is',
    );
    for (const code of ['EROFS', 'EACCES', 'EPERM', 'EDQUOT', 'EMFILE', 'ENFILE', 'EIO']) {
      expect(environmentFailure(systemError(code)), code).toMatch(new RegExp(`\\[${code}\\]: `));
    }
  });

  it('anything else is not the machine’s doing (a bug stays a bug)', () => {
    expect(environmentFailure(systemError('ENOENT', '/x'))).toBeNull();
    expect(environmentFailure(new TypeError('x is undefined'))).toBeNull();
    expect(environmentFailure('text')).toBeNull();
  });

  it('what the user is told: the refusal said plainly, anything else by its message', () => {
    expect(userMessageOf(systemError('EROFS', '/repo/.git'))).toMatch(
      /^the file system is read-only/,
    );
    expect(userMessageOf(new TypeError('x is undefined'))).toBe('x is undefined');
  });
});
