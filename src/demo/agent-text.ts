/** The text work of the scripted demo agent: reading its prompt, editing files. Pure. */

const TASK_LINE = /^(\s*(?:[-*+]|\d+[.)])\s+\[) \](\s+)(\d+(?:\.\d+)+)\b/;

/** tasks.md with every unchecked task of the story (`<storyId>.N`) checked. */
export function tickStoryTasks(
  tasksMd: string,
  storyId: string,
): { text: string; ticked: string[] } {
  const ticked: string[] = [];
  const lines = tasksMd.split('\n').map((line) => {
    const match = TASK_LINE.exec(line);
    const id = match?.[3];
    if (!match || !id?.startsWith(`${storyId}.`)) return line;
    ticked.push(id);
    return `${match[1]}x]${match[2]}${line.slice(match[0].length - id.length)}`;
  });
  return { text: lines.join('\n'), ticked };
}

/** The reason ralphtool put in the prompt after a failed attempt, if any. */
export function previousFailureReason(prompt: string): string | null {
  const at = prompt.indexOf('## Previous Attempt Failed');
  if (at < 0) return null;
  const fence = /^(`{3,})\n([\s\S]*?)\n\1$/m.exec(prompt.slice(at));
  return fence?.[2]?.trim() ?? null;
}

/** "Story 1: Title case" from the prompt's first heading. */
export function promptStory(prompt: string): string | null {
  const match = /^# Working on (Story .+)$/m.exec(prompt);
  return match?.[1]?.trim() ?? null;
}

/** src/index.js with one more re-export, unless the name is exported already. */
export function withExport(indexJs: string, name: string, module: string): string {
  if (indexJs.includes(`{ ${name} }`)) return indexJs;
  const base = indexJs.endsWith('\n') || indexJs === '' ? indexJs : `${indexJs}\n`;
  return `${base}export { ${name} } from '${module}';\n`;
}
