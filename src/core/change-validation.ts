import type { Requirement } from './change.js';

/** One thing wrong with a change, as `openspec validate` or ralphtool's own reading finds it. */
export interface ValidationIssue {
  /** Where: a spec file below the change (`auth/spec.md`), or the change itself (`change`). */
  path: string;
  message: string;
}

/**
 * What `openspec validate <change> --json` printed, read: the ERROR-level issues of the change
 * (warnings never refuse a run), or null when the output is not the report this version of
 * OpenSpec prints (`{ items: [{ valid, issues: [{ level, path, message }] }] }`), so that the
 * caller falls back to ralphtool's own reading.
 */
export function readOpenSpecReport(stdout: string): ValidationIssue[] | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch {
    return null;
  }
  const items = (parsed as { items?: unknown } | null)?.items;
  if (!Array.isArray(items) || items.length === 0) return null;
  const issues: ValidationIssue[] = [];
  for (const item of items as unknown[]) {
    const list = (item as { issues?: unknown } | null)?.issues;
    if (!Array.isArray(list)) return null;
    for (const issue of list as unknown[]) {
      const { level, path, message } = (issue ?? {}) as Record<string, unknown>;
      if (typeof message !== 'string') return null;
      if (level !== 'ERROR') continue;
      issues.push({ path: typeof path === 'string' ? path : 'change', message });
    }
  }
  return issues;
}

/**
 * ralphtool's own reading of a change's specs when the `openspec` CLI is not installed: the
 * errors OpenSpec's validator reports of delta specs that ralphtool's reader can see — a
 * requirement outside a delta section, an added or modified requirement without a scenario, the
 * same requirement twice in one section of one capability.
 */
export function validateRequirements(requirements: readonly Requirement[]): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  for (const requirement of requirements) {
    const path = `${requirement.capability}/spec.md`;
    const op = requirement.operation;
    if (op === null) {
      issues.push({
        path,
        message: `requirement "${requirement.name}" is not under a delta header (## ADDED, MODIFIED, REMOVED or RENAMED Requirements)`,
      });
      continue;
    }
    const key = `${requirement.capability}\0${op}\0${requirement.name.toLowerCase()}`;
    if (seen.has(key)) {
      issues.push({ path, message: `${op} "${requirement.name}" is there twice` });
    }
    seen.add(key);
    if ((op === 'ADDED' || op === 'MODIFIED') && requirement.scenarios.length === 0) {
      issues.push({
        path,
        message: `${op} "${requirement.name}" must include at least one scenario`,
      });
    }
  }
  return issues;
}

/**
 * The one line that refuses an invalid change: its first issue, how many more, and the command
 * that lists them all (`check` is how the user reaches OpenSpec: `openspec validate <change>`).
 */
export function validationRefusal(
  change: string,
  issues: readonly ValidationIssue[],
  check: string,
): string {
  const first = issues[0];
  const where = first === undefined ? '' : `${first.path}: ${first.message}`;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  return `change ${change} is not valid: ${where}${more}; fix its specs, then run again (\`${check}\` lists every issue)`;
}
