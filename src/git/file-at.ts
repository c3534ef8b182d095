import { git, type GitContext } from './git.js';

/**
 * A file's text as a commit holds it; null when the commit has no such file, or it is binary
 * (holds a NUL byte) or longer than `maxChars`: the readers of old texts want text only.
 */
export async function textAt(
  ctx: GitContext,
  commit: string,
  path: string,
  maxChars: number,
): Promise<string | null> {
  const out = await git(ctx, ['cat-file', 'blob', `${commit}:${path}`], { allowFailure: true });
  if (out.exitCode !== 0) return null;
  if (out.stdout.length > maxChars || out.stdout.includes('\0')) return null;
  return out.stdout;
}
