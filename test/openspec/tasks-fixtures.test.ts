import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Story } from '../../src/core/change.js';
import { parseTasks } from '../../src/openspec/tasks.js';
import { FIXTURE_CHANGES } from './helpers.js';

async function fixture(change: string): Promise<Story[]> {
  return parseTasks(await readFile(join(FIXTURE_CHANGES, change, 'tasks.md'), 'utf8'));
}

const heads = (stories: readonly Story[]): string[] => stories.map((s) => `${s.id} ${s.title}`);

describe('parseTasks on real OpenSpec tasks.md files', () => {
  it('`## 1) Title` headings, skipping a "Goals" section without tasks', async () => {
    const stories = await fixture('archive/2025-08-19-add-interactive-show-command');
    expect(heads(stories)).toEqual([
      '1 CLI wiring',
      '2 New module: `src/commands/show.ts`',
      '3 Refactor spec show into reusable API',
      '4 Backwards-compatible interactive in subcommands',
      '5 Shared utilities',
      '6 Hints, warnings, and messages',
      '7 Tests',
      '8 Documentation (optional but recommended)',
      '9 Non-functional checks',
    ]);
    expect(stories[0]?.tasks.map((t) => t.id)).toEqual(['1.1', '1.2', '1.3']);
    expect(stories[0]?.tasks[0]?.description).toMatch(
      /^In `src\/cli\/index.ts` add a top-level command/,
    );
  });

  it('`## Phase N: Title` headings keep their full title and get their position', async () => {
    const stories = await fixture('archive/2025-11-06-add-shell-completions');
    expect(heads(stories)).toEqual([
      '1 Phase 1: Foundation & Architecture',
      '2 Phase 2: Zsh Completion (Oh My Zsh Priority)',
      '3 Phase 3: CLI Command Implementation',
      '4 Phase 4: Integration & Polish',
      '5 Phase 5: Edge Cases & Error Handling',
    ]);
    expect(stories.map((s) => s.tasks.length)).toEqual([6, 9, 8, 18, 9]);
    expect(stories.map((s) => s.done)).toEqual([true, true, true, false, false]);
    expect(stories[3]?.tasks[12]).toMatchObject({ id: '4.13', done: false, line: 49 });
  });

  it('`### Title` groups under a single `## Tasks` heading', async () => {
    const stories = await fixture('archive/2026-01-06-add-specs-apply-command');
    expect(heads(stories)).toEqual(['1 Core Implementation', '2 Skill Template', '3 Registration']);
    expect(stories.map((s) => s.tasks.length)).toEqual([1, 2, 1]);
  });

  it('plain `## Title` headings are numbered by position', async () => {
    const stories = await fixture('archive/2025-09-12-add-view-dashboard-command');
    expect(heads(stories).slice(0, 3)).toEqual([
      '1 Design Phase',
      '2 Core Implementation',
      '3 Integration',
    ]);
    expect(stories[0]?.line).toBe(3);
  });

  it('nested numbered tasks keep their ids and depth', async () => {
    const stories = await fixture('archive/2025-01-13-add-list-command');
    expect(stories[0]?.tasks.map((t) => `${t.id}@${t.depth}`)).toEqual([
      '1.1@0',
      '1.1.1@1',
      '1.1.2@1',
      '1.1.3@1',
      '1.2@0',
      '1.2.1@1',
      '1.2.2@1',
    ]);
  });

  it('unnumbered sub-tasks get ids that do not clash with the numbered ones', async () => {
    const stories = await fixture('archive/2025-08-06-adopt-future-state-storage');
    expect(stories[1]?.tasks.map((t) => `${t.id}@${t.depth}`)).toEqual([
      '2.1@0',
      '2.3@1',
      '2.4@1',
      '2.2@0',
    ]);
  });

  it('`## 0. Title` is story 0 and a missing `## 6.` leaves a gap', async () => {
    expect(heads(await fixture('add-tool-command-surface-capabilities'))[0]).toBe(
      '0 Stacking Coordination',
    );
    const ids = (await fixture('archive/2025-09-29-remove-diff-command')).map((s) => s.id);
    expect(ids).toEqual(['1', '2', '3', '4', '5', '7', '8']);
  });

  it('keeps text after the number in titles such as `## 1. #1182 — …`', async () => {
    const stories = await fixture('fix-validate-view-resolution-parity');
    expect(stories[0]?.title).toBe(
      '#1182 — validate resolves changes like status (membership gate)',
    );
    expect(stories.map((s) => s.id)).toEqual(['1', '2', '3', '4', '5', '6']);
  });
});
