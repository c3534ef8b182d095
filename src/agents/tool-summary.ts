const MAX_SUMMARY_CHARS = 120;

/** Squeezes any text into one short line for the `agent.tool` event and the UI. */
export function oneLine(text: string, maxChars = MAX_SUMMARY_CHARS): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > maxChars ? `${flat.slice(0, maxChars - 1)}…` : flat;
}

/** Input fields that say best what a tool call is about, most telling first. */
const TELLING_KEYS = [
  'file_path',
  // OpenCode's read/write/edit tools.
  'filePath',
  'notebook_path',
  'path',
  'command',
  'pattern',
  'url',
  'query',
  'description',
  'prompt',
];

const PATH_KEYS = new Set(['file_path', 'filePath', 'notebook_path', 'path']);

/**
 * One line about a tool call: the file for Write/Edit/Read, the command for Bash, the
 * pattern for Grep… Paths inside the repository are shown relative to it.
 */
export function summarizeToolInput(input: Record<string, unknown>, cwd?: string): string {
  for (const key of TELLING_KEYS) {
    const value = input[key];
    if (typeof value !== 'string' || value.trim() === '') continue;
    return oneLine(PATH_KEYS.has(key) ? relativeTo(value, cwd) : value);
  }
  if (Array.isArray(input.todos)) return `${input.todos.length} todos`;
  const firstString = Object.values(input).find((v): v is string => typeof v === 'string');
  return firstString === undefined ? '' : oneLine(firstString);
}

function relativeTo(value: string, cwd: string | undefined): string {
  if (!cwd) return value;
  const root = cwd.endsWith('/') ? cwd : `${cwd}/`;
  return value.startsWith(root) ? value.slice(root.length) : value;
}
