import { afterEach, describe, expect, it } from 'vitest';
import { plainStyle } from '../../src/format/style.js';
import { renderChange } from '../../src/cli/render/show.js';
import { readChange } from '../../src/openspec/changes.js';
import { makeTempDir, removeTempDir, writeTree } from '../openspec/helpers.js';
import { printed } from '../support/plain-output.js';

// Story titles, tasks and scenarios come from the change's files (an agent may write them) and
// error messages can quote git's or an agent's output: none may move the cursor, retitle the terminal or clear the screen of the plain output.
const HOSTILE = 'Greet\u001b[2J\u001b]0;owned\u0007 the user\u001b[1A';

describe('the plain run output', () => {
  it('prints a story title from tasks.md without its escape sequences', () => {
    const out = printed([
      {
        type: 'story.started',
        storyId: '1',
        title: HOSTILE,
        index: 1,
        total: 1,
        completed: 0,
        attempt: 1,
      },
    ]);
    expect(out).toContain('Story 1: Greet the user');
    expect(out).not.toContain('\u001b');
    expect(out).not.toContain('\u0007');
  });

  it('prints an error message without escape sequences, keeping its lines', () => {
    const out = printed([{ type: 'error', message: `git said:\n${HOSTILE}`, fatal: true }]);
    expect(out).toContain('error: git said:\nGreet the user');
    expect(out).not.toContain('\u001b');
    expect(out).not.toContain('\u0007');
  });
});

describe('the plain run output, on a terminal and into a file', () => {
  const long = `I looked at ${'every file of the project, '.repeat(12)}and found the cause.`;
  const events = [
    { type: 'agent.message', storyId: '1', attempt: 1, text: long },
    {
      type: 'agent.tool',
      storyId: '1',
      attempt: 1,
      name: 'Bash',
      summary: `npm test -- ${'x'.repeat(300)}`,
    },
  ] as const;

  it('cuts a long line under a story to the terminal’s line', () => {
    const lines = printed(events).trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(160);
    expect(lines[0]).toMatch(/…$/);
  });

  it('writes it whole into a file or a pipe (a CI log), still one line each', () => {
    const lines = printed(events, false).trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe(`  │ ${long}`);
    expect(lines[1]).toContain('x'.repeat(300));
  });
});

describe('ralphtool show', () => {
  let dir = '';
  afterEach(async () => removeTempDir(dir));

  it('prints stories, tasks and scenarios without escape sequences', async () => {
    dir = await makeTempDir();
    await writeTree(dir, {
      'openspec/changes/hostile/tasks.md': `## 1. ${HOSTILE}\n\n- [ ] 1.1 Task ${HOSTILE}\n`,
      'openspec/changes/hostile/specs/auth/spec.md': `## ADDED Requirements\n\n### Requirement: R ${HOSTILE}\n\n#### Scenario: S ${HOSTILE}\n- **WHEN** ${HOSTILE}\n- **THEN** it works\n`,
    });
    const out = renderChange(await readChange(dir, 'hostile'), plainStyle);
    expect(out).toContain('1. Greet the user');
    expect(out).toContain('1.1 Task Greet the user');
    expect(out).toContain('R Greet the user');
    expect(out).toContain('• S Greet the user');
    expect(out).toContain('WHEN Greet the user');
    expect(out).not.toContain('\u001b');
    expect(out).not.toContain('\u0007');
  });
});
