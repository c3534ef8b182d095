import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RunFixture, stories, succeed } from '../../run/helpers.js';

const CHANGE = 'revert-details';

let fixture: RunFixture | undefined;
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
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
