// The project's own prompt template (`.ralphtool/prompt.md`, docs/contract.md, "The prompt
// template"): its placeholders, the rule a template must keep, and how it is filled. Pure.

import { closestName } from './suggest.js';

/** Every placeholder a template may name, in the order of the built-in prompt. */
export const PLACEHOLDERS = [
  'story',
  'answer',
  'previous-failure',
  'scope',
  'tasks',
  'change',
  'scenarios',
  'verify',
  'instructions',
  'learnings',
  'signals',
] as const;

export type Placeholder = (typeof PLACEHOLDERS)[number];

/**
 * What ralphtool's own protocol needs the agent to read, so a template without one is refused:
 * `story` says which story is worked on (the attempt is judged for it), `tasks` the tasks whose
 * ticks accept it, `answer` carries `resume --answer` to the agent (else a BLOCKED run would ask
 * again and again) and `signals` the lines the judge reads (else every attempt ends without a
 * signal). The others make the work better, and a project may say them in its own words.
 */
export const REQUIRED_PLACEHOLDERS: readonly Placeholder[] = [
  'story',
  'tasks',
  'answer',
  'signals',
];

/** `{{ name }}`: a name of letters, digits and dashes between double braces, spaces allowed. */
const PLACEHOLDER_PATTERN = /\{\{\s*([^{}\s]*)\s*\}\}/g;

export interface TemplateCheck {
  missing: readonly Placeholder[];
  unknown: readonly string[];
}

/** The required placeholders the template lacks and the names it uses that are none. */
export function checkTemplate(text: string): TemplateCheck {
  const named = new Set([...text.matchAll(PLACEHOLDER_PATTERN)].map((m) => m[1] ?? ''));
  const known = new Set<string>(PLACEHOLDERS);
  return {
    missing: REQUIRED_PLACEHOLDERS.filter((name) => !named.has(name)),
    unknown: [...named].filter((name) => !known.has(name)),
  };
}

/** The one line that refuses a template, or null when it can be used. */
export function templateProblem(text: string, file: string): string | null {
  const { missing, unknown } = checkTemplate(text);
  if (missing.length === 0 && unknown.length === 0) return null;
  const parts: string[] = [];
  if (missing.length > 0) parts.push(`missing ${missing.map(braced).join(', ')}`);
  if (unknown.length > 0) {
    parts.push(`unknown ${unknown.map((name) => `${braced(name)}${hint(name)}`).join(', ')}`);
  }
  return `${file}: ${parts.join('; ')}: a prompt template needs ${REQUIRED_PLACEHOLDERS.map(braced).join(', ')} and may name ${PLACEHOLDERS.filter(
    (p) => !REQUIRED_PLACEHOLDERS.includes(p),
  )
    .map(braced)
    .join(', ')} (docs/contract.md, "The prompt template")`;
}

/**
 * The template with each placeholder replaced by its part of the prompt (an empty part leaves
 * nothing, and the blank lines around it close up). One pass: what a part holds (the learnings,
 * a failure's reason) is never read as a placeholder.
 */
export function fillTemplate(
  text: string,
  parts: Readonly<Record<Placeholder, string | null>>,
): string {
  const filled = text.replace(PLACEHOLDER_PATTERN, (_whole, name: string) => {
    return (PLACEHOLDERS as readonly string[]).includes(name)
      ? (parts[name as Placeholder] ?? '')
      : '';
  });
  return `${filled
    .replace(/\r\n/g, '\n')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()}\n`;
}

function braced(name: string): string {
  return `{{${name}}}`;
}

function hint(name: string): string {
  const normal = name.toLowerCase().replace(/_/g, '-');
  const close = (PLACEHOLDERS as readonly string[]).includes(normal)
    ? normal
    : closestName(normal, PLACEHOLDERS);
  return close === null ? '' : ` (did you mean ${braced(close)}?)`;
}
