import { countStories, countTasks, type Change } from '../../core/change.js';
import type { UiRunOptions } from '../controller.js';
import type { PreviewState } from '../state/app-state.js';
import { clampTop } from '../state/scroll.js';
import { oneLine, wrap } from '../../format/text.js';
import { plural } from '../../format/units.js';
import { runOptionsRows } from './changes-frame.js';
import { bodyHeight, row, type Frame, type Row, type Size } from './frame.js';

/** Screen 2: one change's stories and tasks, or its scenarios, before running it. */
export function previewFrame(preview: PreviewState, options: UiRunOptions, size: Size): Frame {
  const name = oneLine(preview.name);
  const loaded = preview.change.status === 'ready' ? preview.change.value : null;
  const header: Row[] = [
    [
      { text: 'ralphtool', tone: 'title' },
      { text: ' › ', tone: 'dim' },
      { text: name, tone: 'title' },
      { text: loaded ? `  ${counts(loaded)}` : '', tone: 'dim' },
    ],
    tabsRow(['Tasks', 'Scenarios'], preview.tab === 'tasks' ? 0 : 1),
  ];
  const footer: Row[] = [
    ...runOptionsRows(options, size.columns),
    row('Tab switch · ↑/↓ PgUp/PgDn scroll · r run · Esc back · q quit', 'dim'),
  ];
  const height = bodyHeight(size, header.length, footer.length);
  let body: Row[];
  if (preview.change.status === 'loading') body = [row(`loading ${name}…`, 'dim')];
  else if (preview.change.status === 'error')
    body = wrap(
      `could not read ${name}: ${oneLine(preview.change.message)}`,
      size.columns,
      '  ',
    ).map((line) => row(line, 'bad'));
  else
    body =
      preview.tab === 'tasks'
        ? taskRows(preview.change.value, size.columns)
        : scenarioRows(preview.change.value, size.columns);
  const top = clampTop(preview.scroll[preview.tab], { total: body.length, viewport: height });
  return { header, body, top, height, footer, moreBelowHint: true };
}

function counts(change: Change): string {
  const s = countStories(change.stories);
  const t = countTasks(change.stories);
  const scenarios = change.requirements.reduce((n, r) => n + r.scenarios.length, 0);
  return `stories ${s.done}/${s.total} · tasks ${t.done}/${t.total} · ${plural(scenarios, 'scenario')}`;
}

export function tabsRow(names: readonly string[], active: number, note = ''): Row {
  const r: Row = [];
  names.forEach((n, i) => {
    r.push(
      i === active ? { text: `[ ${n} ]`, tone: 'selected' } : { text: `  ${n}  `, tone: 'dim' },
    );
    r.push({ text: ' ' });
  });
  if (note) r.push({ text: note, tone: 'dim' });
  return r;
}

function taskRows(change: Change, width: number): Row[] {
  if (change.stories.length === 0) {
    return [
      row('No tasks: tasks.md is missing or has no "- [ ] …" lines under a heading.', 'warn'),
    ];
  }
  const rows: Row[] = [];
  for (const story of change.stories) {
    const done = story.tasks.filter((t) => t.done).length;
    rows.push(
      row(
        `${story.done ? '✓' : '○'} Story ${oneLine(story.id)}: ${oneLine(story.title)}  (${done}/${story.tasks.length})`,
        story.done ? 'good' : 'title',
      ),
    );
    for (const task of story.tasks) {
      const indent = '    ' + '  '.repeat(task.depth);
      const text = `${indent}[${task.done ? 'x' : ' '}] ${oneLine(task.id)} ${oneLine(task.description)}`;
      for (const line of wrap(text, width, `${indent}    `))
        rows.push(row(line, task.done ? 'dim' : 'plain'));
    }
  }
  return rows;
}

function scenarioRows(change: Change, width: number): Row[] {
  const scenarios = change.requirements.reduce((n, r) => n + r.scenarios.length, 0);
  if (scenarios === 0) {
    return [
      row('No scenarios: this change has no specs/<capability>/spec.md with scenarios.', 'warn'),
    ];
  }
  const rows: Row[] = [];
  let capability: string | null = null;
  for (const requirement of change.requirements) {
    if (requirement.capability !== capability) {
      capability = requirement.capability;
      rows.push(row(oneLine(capability), 'title'));
    }
    const op = requirement.operation ? `${requirement.operation} ` : '';
    rows.push(row(`  ${op}Requirement: ${oneLine(requirement.name)}`, 'accent'));
    for (const scenario of requirement.scenarios) {
      rows.push(row(`    Scenario: ${oneLine(scenario.name)}`));
      const steps: [string, string[]][] = [
        ['GIVEN', scenario.given],
        ['WHEN', scenario.when],
        ['THEN', scenario.then],
      ];
      for (const [label, list] of steps) {
        list.forEach((step, i) => {
          // As written: runs of spaces can be what the scenario is about (`a  b`, aligned output).
          const text = `      ${i === 0 ? label : 'AND'} ${oneLine(step)}`;
          for (const line of wrap(text, width, '          ')) rows.push(row(line, 'dim'));
        });
      }
    }
  }
  return rows;
}
