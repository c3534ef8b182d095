/**
 * `--resolve-conflicts` (docs/contract.md, "Bringing a colliding change home"): the story that
 * brings a run's branch onto the user's work tree, appended to its tasks.md, and the conflict
 * markers its attempt must leave none of. Pure.
 */

/** The appended story's title, as its heading says it. */
export const RESOLVE_STORY_TITLE = 'Bring this change onto your work tree';

/** The story's id: one past the highest whole number any story has (never one already taken). */
export function resolveStoryId(storyIds: readonly string[]): string {
  let highest = storyIds.length;
  for (const id of storyIds) {
    const whole = /^(\d+)/.exec(id);
    if (whole?.[1] !== undefined) highest = Math.max(highest, Number(whole[1]));
  }
  return String(highest + 1);
}

/**
 * tasks.md with the story appended: one task naming the colliding files and what "done" means
 * (no conflict marker left, the work of the change and the user's both kept).
 */
export function appendResolveStory(
  tasks: string,
  storyId: string,
  files: readonly string[],
  against: string,
): string {
  const shown = files.map((file) => `\`${file}\``).join(', ');
  const body = [
    `## ${storyId}. ${RESOLVE_STORY_TITLE}`,
    '',
    `- [ ] ${storyId}.1 Resolve the merge conflicts with ${against} in ${shown}: keep both this change's work and theirs, remove every conflict marker (\`<<<<<<<\`, \`=======\`, \`>>>>>>>\`) and make the checks pass`,
    '',
  ].join('\n');
  const separated =
    tasks === '' || tasks.endsWith('\n\n')
      ? tasks
      : tasks.endsWith('\n')
        ? `${tasks}\n`
        : `${tasks}\n\n`;
  return `${separated}${body}`;
}

/** A line git writes to open or close a conflict (`<<<<<<< ours`, `>>>>>>> theirs`). */
const MARKER = /^(?:<{7}|>{7})(?: |$)/m;

/** Whether a text still holds a conflict marker line (the `=======` between is a heading underline too). */
export function hasConflictMarkers(text: string): boolean {
  return MARKER.test(text);
}

/** The reason an attempt with markers left is not accepted. */
export function markersLeftReason(files: readonly string[]): string {
  const shown = files.slice(0, 5).join(', ');
  const more = files.length > 5 ? ` and ${String(files.length - 5)} more` : '';
  return `conflict markers are left in ${shown}${more}: resolve every conflict and remove the marker lines`;
}
