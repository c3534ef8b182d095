import { UsageError } from './errors.js';

/** OpenSpec's change-name rule: lowercase kebab-case, starting with a letter or digit. */
const CHANGE_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** Longest name we accept; keeps paths and ref names far from OS limits. */
const MAX_CHANGE_NAME_LENGTH = 200;

export function isValidChangeName(name: string): boolean {
  return name.length <= MAX_CHANGE_NAME_LENGTH && CHANGE_NAME.test(name);
}

/**
 * Checks a change name before it is used in a path or a branch name, so that
 * `../../etc` or `-rf` can never reach the file system or git.
 */
export function assertValidChangeName(name: string): string {
  if (!isValidChangeName(name)) {
    const shown = JSON.stringify(name);
    throw new UsageError(
      `invalid change name ${shown}: use lowercase kebab-case, e.g. "add-auth" (see \`ralphtool list\`)`,
    );
  }
  return name;
}
