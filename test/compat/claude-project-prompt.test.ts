// The project's words reach the model: `.ralphtool/instructions.md` (and a `.ralphtool/prompt.md`
// template) go through the REAL Claude Code binary into its request to the scripted server.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, type CliRun } from '../support/cli.js';
import { claudeBinPath, claudeEnv, startModelServer } from '../support/model-server.js';
import type { TempRepo } from '../support/temp-repo.js';
import { undoAfterEach } from '../support/e2e-cleanups.js';
import { promptsSeen, scriptByAttempt } from './conversations.js';

const CHANGE = 'house-rules';
const TASKS = `openspec/changes/${CHANGE}/tasks.md`;
const { later, repoWith } = undoAfterEach(CHANGE);
const RULES = 'House rule 12: every function has a doc comment.\nRun `make check` before COMPLETE.';

/** The project's files committed as a team would, then one story ticked and completed by claude. */
async function runWith(files: Record<string, string>): Promise<{ run: CliRun; prompt: string }> {
  const repo: TempRepo = repoWith([{ title: 'Doc comments', tasks: ['Write them'] }]);
  for (const [file, content] of Object.entries(files)) repo.write(file, content);
  repo.git('add', '-A');
  repo.git('commit', '-q', '-m', 'ralphtool project files');
  const server = await startModelServer(
    scriptByAttempt({
      '1-1': [
        [
          {
            tool: 'Bash',
            input: {
              command: `sed -i 's/^- \\[ \\] 1\\.1 /- [x] 1.1 /' ${TASKS}`,
              description: 'Tick task 1.1',
            },
          },
        ],
        [{ text: 'Done.\n\n<promise>COMPLETE</promise>' }],
      ],
    }),
  );
  later(() => server.close());
  const home = mkdtempSync(path.join(os.tmpdir(), 'ralphtool-e2e-home-'));
  later(() => rmSync(home, { recursive: true, force: true }));
  const run = await runCli(
    ['run', CHANGE, '--agent', 'claude', '--json', '--on-complete', 'keep'],
    {
      cwd: repo.dir,
      env: { ...claudeEnv(server.url, home), RALPHTOOL_CLAUDE_BIN: claudeBinPath() },
      timeoutMs: 240_000,
    },
  );
  expect(server.errors.map((e) => e.message)).toEqual([]);
  expect(run.exitCode, run.stderr).toBe(0);
  const prompt = promptsSeen(server).get('1-1');
  expect(prompt, 'the model saw no prompt of attempt 1-1').toBeDefined();
  return { run, prompt: prompt ?? '' };
}

describe('the project prompt through the real claude binary', () => {
  it('the instructions reach the model under their own heading', async () => {
    const { prompt } = await runWith({ '.ralphtool/instructions.md': `${RULES}\n` });
    expect(prompt).toContain('## Project instructions');
    expect(prompt).toContain(RULES);
    // Within the built-in prompt: after the tasks, before the signals.
    expect(prompt.indexOf('## Tasks of this story')).toBeLessThan(prompt.indexOf(RULES));
    expect(prompt.indexOf(RULES)).toBeLessThan(prompt.indexOf('## When you are done'));
  });

  it("a template's words and the instructions it places reach the model, the parts it leaves out do not", async () => {
    const template = [
      '# The Acme way',
      '',
      '{{story}}',
      '',
      '{{answer}}',
      '',
      '{{instructions}}',
      '',
      'Acme note: keep diffs under 200 lines.',
      '',
      '{{tasks}}',
      '',
      '{{signals}}',
      '',
    ].join('\n');
    const { prompt } = await runWith({
      '.ralphtool/instructions.md': `${RULES}\n`,
      '.ralphtool/prompt.md': template,
    });
    expect(prompt).toContain('# The Acme way');
    expect(prompt).toContain('Acme note: keep diffs under 200 lines.');
    expect(prompt).toContain(RULES);
    expect(prompt.indexOf(RULES)).toBeLessThan(prompt.indexOf('## Tasks of this story'));
    expect(prompt).not.toContain('## Shared learnings');
    expect(prompt).not.toContain('## Verification');
  });
});
