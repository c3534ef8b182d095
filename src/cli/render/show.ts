import type { Change, Requirement } from '../../core/change.js';
import { countStories, countTasks } from '../../core/change.js';
import type { Style } from '../../format/style.js';
import { oneLine } from '../../format/text.js';

/**
 * The text of `ralphtool show`: stories with their tasks, then scenarios by capability. Every
 * text comes from the change's files, which an agent may have written: each is printed on one
 * line without escape sequences.
 */
export function renderChange(change: Change, style: Style): string {
  const stories = countStories(change.stories);
  const tasks = countTasks(change.stories);
  const out: string[] = [
    `${style.bold(change.name)}  ${style.dim(change.path)}`,
    `stories ${stories.done}/${stories.total} · tasks ${tasks.done}/${tasks.total}`,
    '',
    style.bold('Stories'),
  ];
  if (change.stories.length === 0) out.push(style.dim('  (no tasks in tasks.md)'));
  for (const story of change.stories) {
    const mark = story.done ? style.green('✓') : ' ';
    out.push(`${mark} ${style.bold(`${story.id}.`)} ${oneLine(story.title)}`);
    for (const task of story.tasks) {
      const box = task.done ? style.green('[x]') : '[ ]';
      const indent = '  '.repeat(task.depth + 1);
      out.push(`${indent}${box} ${style.dim(task.id)} ${oneLine(task.description)}`);
    }
  }
  out.push('', style.bold('Scenarios'));
  if (change.requirements.length === 0) out.push(style.dim('  (no specs in this change)'));
  out.push(...renderRequirements(change.requirements, style));
  return `${out.join('\n')}\n`;
}

function renderRequirements(requirements: readonly Requirement[], style: Style): string[] {
  const out: string[] = [];
  let capability: string | null = null;
  for (const requirement of requirements) {
    if (requirement.capability !== capability) {
      capability = requirement.capability;
      out.push(`  ${style.cyan(oneLine(capability))}`);
    }
    const op = requirement.operation ? style.dim(` [${requirement.operation}]`) : '';
    out.push(`    ${oneLine(requirement.name)}${op}`);
    for (const scenario of requirement.scenarios) {
      out.push(`      • ${oneLine(scenario.name)}`);
      for (const [word, steps] of [
        ['GIVEN', scenario.given],
        ['WHEN', scenario.when],
        ['THEN', scenario.then],
      ] as const) {
        // The steps after the first of a kind were written AND (or BUT): shown as AND, as in the UI.
        steps.forEach((step, i) => {
          out.push(`          ${style.dim(i === 0 ? word : 'AND')} ${oneLine(step)}`);
        });
      }
    }
  }
  return out;
}
