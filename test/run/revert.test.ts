import { afterEach, describe, expect, it } from 'vitest';
import { LoopHarness } from '../support/loop-harness.js';
import { single, stories, succeed } from './helpers.js';

const CHANGE = 'revert-details';
const REF = `refs/ralphtool/${CHANGE}/attempts/1-1`;

let fixture: LoopHarness | undefined;
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
});

describe('the loop: what a revert puts back and what it leaves alone', () => {
  it('restores deleted and edited files, removes new ones, never deletes ignored files', async () => {
    fixture = new LoopHarness(CHANGE, stories(1), { '.gitignore': 'node_modules/\n.env\n' });
    const f = fixture;
    f.repo.write('.env', 'TOKEN=abc\n');
    f.scenario({
      '1-1': [
        { delete: 'README.md' },
        { write: 'src/app.txt', content: 'rewritten\n' },
        { write: 'node_modules/new-dep/index.js', content: 'installed by the agent\n' },
        { write: '.env', content: 'TOKEN=changed\n' },
        // A new folder whose own .gitignore hides its output from git.
        { write: 'gen/.gitignore', content: 'out.txt\n' },
        { write: 'gen/out.txt', content: 'generated\n' },
        { signal: 'FAILED: wrong approach' },
      ],
      // An echoed prompt before a genuine COMPLETE must not hide that COMPLETE.
      '1-2': [{ echoPrompt: true }, ...succeed('src/b.txt', 'b\n')],
    });
    const result = await f.run({ maxRetries: 1, completion: 'keep' });
    expect(result.exitCode).toBe(0);
    expect(single(result.events(), 'checkpoint.reverted')).toMatchObject({ savedRef: REF });

    expect(f.read('README.md')).toBe('# demo project\n');
    expect(f.read('src/app.txt')).toBe('app v1\n');
    expect(f.exists('gen')).toBe(false);
    // Ignored files are never deleted, not even the ones the failed attempt made.
    expect(f.read('node_modules/new-dep/index.js')).toBe('installed by the agent\n');
    expect(f.exists('.env')).toBe(true);
    expect(f.status()).toEqual([]);
    // The attempt is saved whole, including what only its own .gitignore hid.
    expect(f.git('show', `${REF}:gen/out.txt`)).toBe('generated\n');
    expect(f.git('show', `${REF}:src/app.txt`)).toBe('rewritten\n');
    expect(f.git('ls-tree', '-r', '--name-only', REF)).not.toContain('README.md');
  });
});
