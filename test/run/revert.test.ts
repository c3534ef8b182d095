import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LoopHarness } from '../support/loop-harness.js';
import { RunFixture, single, stories, succeed } from './helpers.js';

const CHANGE = 'revert-details';
const REF = `refs/ralphtool/${CHANGE}/attempts/1-1`;

let fixture: LoopHarness | RunFixture | undefined;
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

describe('ralphtool run: how the command agent is started', () => {
  it('gives the command agent its prompt on stdin and in RALPHTOOL_PROMPT_FILE, with the RALPHTOOL_* variables', async () => {
    fixture = new RunFixture(CHANGE, stories(2)).scenario({
      '1-1': [{ signal: 'FAILED: first try' }],
      '1-2': succeed('src/one.txt', 'one\n'),
      '2-1': succeed('src/two.txt', 'two\n'),
    });
    const f = fixture;
    const result = await f.run(['--json', '--max-retries', '1']);
    expect(result.exitCode).toBe(0);
    for (const [story, attempt] of [
      ['1', 1],
      ['1', 2],
      ['2', 1],
    ] as const) {
      const invocation = JSON.parse(
        readFileSync(path.join(f.logDir, `invocation-${story}-${attempt}.json`), 'utf8'),
      ) as { cwd: string; env: Record<string, string>; promptFileContent: string | null };
      expect(invocation.cwd).toBe(f.dir);
      expect(invocation.env).toMatchObject({
        RALPHTOOL_CHANGE: CHANGE,
        RALPHTOOL_STORY_ID: story,
        RALPHTOOL_ATTEMPT: String(attempt),
      });
      const prompt = f.prompt(story, attempt);
      expect(prompt.startsWith(`# Working on Story ${story}: Story ${story}`)).toBe(true);
      expect(invocation.promptFileContent).toBe(prompt);
      // The prompt file is ralphtool's own, outside the work tree.
      expect(invocation.env.RALPHTOOL_PROMPT_FILE?.startsWith(path.join(f.dir, '.git'))).toBe(true);
    }
  });
});
