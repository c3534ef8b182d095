import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Story } from '../../src/core/change.js';
import { buildPrompt } from '../../src/core/prompt.js';
import {
  previousFailureReason,
  promptStory,
  tickStoryTasks,
  withExport,
} from '../../src/demo/agent-text.js';
import { demoAgentCommandLine } from '../../src/demo/agent-path.js';
import { shellWord } from '../../src/core/shell-word.js';
import { demoClosing, demoIntro } from '../../src/demo/messages.js';
import { DEMO_CHANGE, demoProjectFiles } from '../../src/demo/project.js';
import { demoPlan } from '../../src/demo/script.js';
import { installHint } from '../../src/agents/programs.js';
import { splitCommandLine } from '../../src/process/command-line.js';
import { execProgram } from '../../src/process/exec.js';
import { parseTasks } from '../../src/openspec/tasks.js';

const INSTALL_CLAUDE = installHint('claude');

const tasksMd = demoProjectFiles()[`openspec/changes/${DEMO_CHANGE}/tasks.md`] ?? '';

function promptFor(story: Story, previousFailure: string | null): string {
  return buildPrompt({
    changeName: DEMO_CHANGE,
    paths: {
      changeDir: `openspec/changes/${DEMO_CHANGE}`,
      tasks: `openspec/changes/${DEMO_CHANGE}/tasks.md`,
      proposal: null,
      design: null,
      specsDir: null,
    },
    story,
    attempt: previousFailure ? 2 : 1,
    maxAttempts: 4,
    previousFailure: previousFailure ? { kind: 'failed-signal', reason: previousFailure } : null,
    requirements: [],
    verify: { commands: ['node --test'], inferred: false },
    learnings: { path: '/x/learnings.md', content: '' },
  });
}

describe('the demo change', () => {
  const stories = parseTasks(tasksMd);

  it('has 3–4 stories, each with tasks, all unchecked', () => {
    expect(stories.length).toBeGreaterThanOrEqual(3);
    expect(stories.length).toBeLessThanOrEqual(4);
    for (const story of stories) {
      expect(story.tasks.length).toBeGreaterThan(0);
      expect(story.done).toBe(false);
    }
  });

  it('has a scripted plan for every story that ends by ticking its tasks', () => {
    for (const story of stories) {
      const plan = demoPlan(story.id, 1);
      expect(plan, `story ${story.id}`).not.toBeNull();
      expect(plan?.steps.at(-1)).toEqual({ kind: 'tick' });
    }
    expect(demoPlan('9', 1)).toBeNull();
  });

  it('fails exactly one first attempt on purpose, and not its retry', () => {
    const failing = stories.filter((s) =>
      demoPlan(s.id, 1)?.steps.some((step) => step.kind === 'test' && step.failure),
    );
    expect(failing.map((s) => s.id)).toEqual(['2']);
    expect(demoPlan('2', 2)?.steps.some((s) => s.kind === 'test' && s.failure)).toBe(false);
  });

  it('is valid for the OpenSpec CLI itself', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ralphtool-demo-spec-'));
    try {
      for (const [file, content] of Object.entries(demoProjectFiles())) {
        mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
        writeFileSync(path.join(dir, file), content);
      }
      const result = await execProgram(
        path.resolve('node_modules/.bin/openspec'),
        ['validate', DEMO_CHANGE, '--strict'],
        {
          baseEnv: process.env,
          cwd: dir,
          env: { OPENSPEC_TELEMETRY: '0' },
          timeoutMs: 60_000,
          reject: false,
        },
      );
      expect(result.stdout + result.stderr).toMatch(/is valid/);
      expect(result.exitCode).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('tickStoryTasks', () => {
  it("checks exactly the story's tasks and keeps every other byte", () => {
    const { text, ticked } = tickStoryTasks(tasksMd, '2');
    expect(ticked).toEqual(['2.1', '2.2', '2.3']);
    const after = parseTasks(text);
    expect(after.map((s) => s.done)).toEqual([false, true, false, false]);
    expect(text.replace(/- \[x\] 2\./g, '- [ ] 2.')).toBe(tasksMd);
  });

  it('does not confuse story 1 with story 10, and leaves checked tasks alone', () => {
    const md = '## 1. A\n- [x] 1.1 done\n- [ ] 1.2 todo\n## 10. B\n- [ ] 10.1 other\n';
    const { text, ticked } = tickStoryTasks(md, '1');
    expect(ticked).toEqual(['1.2']);
    expect(text).toBe('## 1. A\n- [x] 1.1 done\n- [x] 1.2 todo\n## 10. B\n- [ ] 10.1 other\n');
  });
});

describe('reading the prompt ralphtool builds', () => {
  const story = parseTasks(tasksMd)[1] as Story;

  it('finds the previous failure reason only when there is one', () => {
    const reason = "countWords('') is 1, not 0 ``` (2 failing)";
    expect(previousFailureReason(promptFor(story, reason))).toBe(reason);
    expect(previousFailureReason(promptFor(story, null))).toBeNull();
  });

  it('names the story', () => {
    expect(promptStory(promptFor(story, null))).toBe('Story 2: Word count');
  });
});

describe('withExport', () => {
  it('adds a re-export once', () => {
    const once = withExport("export { a } from './a.js';", 'b', './b.js');
    expect(once).toBe("export { a } from './a.js';\nexport { b } from './b.js';\n");
    expect(withExport(once, 'b', './b.js')).toBe(once);
  });
});

describe('the demo command line and messages', () => {
  it('quotes paths so that the agent command splits back into them', () => {
    const line = demoAgentCommandLine('/opt/my node/bin/node', "/tmp/it's here/agent.js");
    expect(splitCommandLine(line)).toEqual(['/opt/my node/bin/node', "/tmp/it's here/agent.js"]);
    expect(shellWord('/usr/bin/node')).toBe('/usr/bin/node');
  });

  it('says the agent is scripted, and how to go on after keep or cleanup', () => {
    expect(demoIntro({ dir: '/d', change: 'c', stories: 4, interactive: false })).toMatch(
      /scripted \(no AI, no API key/,
    );
    const keep = demoClosing({
      dir: '/d',
      change: 'c',
      run: 'finished',
      onRunBranch: true,
      savedAttemptRef: null,
      installClaude: INSTALL_CLAUDE,
    });
    expect(keep).toContain('git -C /d log --oneline ralph/c');
    expect(keep).toContain('ralphtool -C /d status');
    expect(keep).toContain('ralphtool run <change>');
    expect(keep).toContain(`1. ${INSTALL_CLAUDE}`);
    const cleanup = demoClosing({
      dir: '/d',
      change: 'c',
      run: 'finished',
      onRunBranch: false,
      savedAttemptRef: 'refs/ralphtool/c/attempts/2-1',
      installClaude: INSTALL_CLAUDE,
    });
    expect(cleanup).toContain('git -C /d status');
    expect(cleanup).toContain('git -C /d show --stat refs/ralphtool/c/attempts/2-1');
    expect(cleanup).not.toContain('log --oneline');
    const stopped = demoClosing({
      dir: '/d',
      change: 'c',
      run: 'unfinished',
      onRunBranch: true,
      savedAttemptRef: null,
      installClaude: INSTALL_CLAUDE,
    });
    expect(stopped).toContain('ralphtool -C /d resume c');
    expect(stopped).not.toContain('log --oneline');
    const none = demoClosing({
      dir: '/d',
      change: 'c',
      run: 'none',
      onRunBranch: false,
      savedAttemptRef: null,
      installClaude: INSTALL_CLAUDE,
    });
    expect(none).toContain('nothing was run');
    expect(none).not.toContain('uncommitted');
  });
});
