import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { execProgram } from '../../src/process/exec.js';
import { listChanges } from '../../src/openspec/changes.js';
import { parseTasks } from '../../src/openspec/tasks.js';
import { copyFixtureCorpus, makeTempDir, removeTempDir, writeTree } from '../openspec/helpers.js';

const OPENSPEC = join(process.cwd(), 'node_modules', '.bin', 'openspec');

const OpenSpecList = z.object({
  changes: z.array(
    z.object({
      name: z.string(),
      completedTasks: z.number().int(),
      totalTasks: z.number().int(),
      lastModified: z.string(),
    }),
  ),
});
type OpenSpecChange = z.infer<typeof OpenSpecList>['changes'][number];

/** Lines that sit on the edges of OpenSpec's task rule, so the referee sees them too. */
const EDGE_CASES = {
  'openspec/changes/zz-edge-markers/tasks.md': [
    '# Edge markers',
    '## 1) Boxes',
    '- [ ] 1.1 open',
    '* [x] 1.2 star',
    '+ [X] 1.3 plus',
    '1. [~] tilde',
    '2) [] empty',
    '    - [ x ] padded',
    '- [A](https://example.com) link, not a task',
    '- [WIP] two letters, not a task',
    '- [ ](./blank-box) still a task',
    '```markdown',
    '## 9. fenced heading',
    '- [x] fenced task still counts',
    '```',
    '## Phase 2: More',
    '1234567890. [ ] ten digits, not a task',
    '123456789. [x] nine digits',
    '- [x]tight',
  ].join('\n'),
  'openspec/changes/zz-edge-crlf/tasks.md':
    '\ufeff## 1. Windows\r\n- [x] 1.1 crlf\r\n- [ ] 1.2 crlf\r\n- [ ] lone\r- [x] cr\r\n',
};

async function openspecList(cwd: string): Promise<Map<string, OpenSpecChange>> {
  const result = await execProgram(OPENSPEC, ['list', '--json', '--sort', 'name'], {
    baseEnv: process.env,
    cwd,
    env: {
      OPENSPEC_TELEMETRY: '0',
      XDG_CONFIG_HOME: join(cwd, '.xdg-config'),
      XDG_DATA_HOME: join(cwd, '.xdg-data'),
    },
    timeoutMs: 120_000,
  });
  const parsed = OpenSpecList.parse(JSON.parse(result.stdout));
  return new Map(parsed.changes.map((change) => [change.name, change]));
}

/** Un-checks every box: `[x]`, `[ X ]` become blank boxes, which OpenSpec reads as open. */
function uncheckAll(content: string): string {
  return content.replace(/\[(\s*)[xX](\s*)\]/g, '[$1 $2]');
}

describe('task counts equal `openspec list --json` on the whole fixture corpus', () => {
  const roots: string[] = [];
  afterAll(async () => {
    for (const root of roots) await removeTempDir(root);
  });

  /** All fixture changes (active and archived) plus the edge cases, as active changes. */
  async function corpus(): Promise<{ root: string; names: string[] }> {
    const root = await makeTempDir();
    roots.push(root);
    const names = await copyFixtureCorpus(root);
    await writeTree(root, EDGE_CASES);
    return { root, names: [...names, 'zz-edge-crlf', 'zz-edge-markers'] };
  }

  /** Runs OpenSpec once and compares every change; returns how many were compared. */
  async function compareWithOpenSpec(
    root: string,
    names: readonly string[],
  ): Promise<{ compared: number; referee: Map<string, OpenSpecChange> }> {
    const referee = await openspecList(root);
    const ours = await listChanges(root);
    expect(ours.map((change) => change.name)).toEqual([...referee.keys()].sort());
    let compared = 0;
    for (const name of names) {
      const theirs = referee.get(name);
      const mine = ours.find((change) => change.name === name);
      expect(theirs, `openspec lists ${name}`).toBeDefined();
      expect({ name, total: mine?.tasks.total, done: mine?.tasks.done }).toEqual({
        name,
        total: theirs?.totalTasks,
        done: theirs?.completedTasks,
      });
      expect(mine?.lastModified, name).toBe(theirs?.lastModified);

      const content = await readFile(
        join(root, 'openspec', 'changes', name, 'tasks.md'),
        'utf8',
      ).catch(() => '');
      const lines = parseTasks(content).flatMap((story) => story.tasks.map((task) => task.line));
      expect(new Set(lines).size, `${name}: no task in two stories`).toBe(lines.length);
      expect(lines.length, `${name}: no task dropped`).toBe(theirs?.totalTasks);
      compared++;
    }
    return { compared, referee };
  }

  it('as written', async () => {
    const { root, names } = await corpus();
    expect(names).toHaveLength(105 + 2);
    const { compared, referee } = await compareWithOpenSpec(root, names);
    expect(compared).toBe(names.length);
    // The edge cases really are edges: OpenSpec counts some of their odd lines and not others.
    expect(referee.get('zz-edge-markers')).toMatchObject({ totalTasks: 10, completedTasks: 6 });
    expect(referee.get('zz-edge-crlf')).toMatchObject({ totalTasks: 3, completedTasks: 1 });
  });

  it('with every box un-checked', async () => {
    const { root, names } = await corpus();
    for (const name of names) {
      const path = join(root, 'openspec', 'changes', name, 'tasks.md');
      const content = await readFile(path, 'utf8').catch(() => null);
      if (content !== null) await writeFile(path, uncheckAll(content));
    }
    const { compared, referee } = await compareWithOpenSpec(root, names);
    expect(compared).toBe(names.length);
    expect([...referee.values()].every((change) => change.completedTasks === 0)).toBe(true);
    expect(
      [...referee.values()].reduce((sum, change) => sum + change.totalTasks, 0),
    ).toBeGreaterThan(2000);
  });
});
