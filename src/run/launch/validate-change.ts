import { existsSync } from 'node:fs';
import path from 'node:path';
import { findProgram } from '../../agents/preflight.js';
import type { Change } from '../../core/change.js';
import {
  readOpenSpecReport,
  validateRequirements,
  validationRefusal,
  type ValidationIssue,
} from '../../core/change-validation.js';
import { UsageError } from '../../core/errors.js';
import { changePaths } from '../../openspec/changes.js';
import { execProgram } from '../../process/exec.js';

/** The `openspec` CLI answers in about half a second; a hung one must not hold the start. */
const VALIDATE_TIMEOUT_MS = 60_000;

/**
 * `openspec validate <change>` before the first story (docs/contract.md, "A change is validated
 * first"): the real CLI when it is installed (on PATH, or the project's node_modules/.bin), else
 * ralphtool's own reading of the specs. A change with no specs/ folder has nothing to validate.
 * An invalid change is refused (exit 2) before anything changes.
 */
export async function assertChangeValid(
  specRoot: string,
  change: Change,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  if (!existsSync(changePaths(specRoot, change.name).specsDir)) return;
  const cli = openSpecProgram(specRoot, env);
  const fromCli = cli === null ? null : await validateWithCli(cli, specRoot, change.name, env);
  const issues = fromCli ?? validateRequirements(change.requirements);
  if (issues.length === 0) return;
  const check =
    fromCli !== null ? `openspec validate ${change.name}` : `ralphtool show ${change.name}`;
  throw new UsageError(validationRefusal(change.name, issues, check));
}

function openSpecProgram(specRoot: string, env: NodeJS.ProcessEnv): string | null {
  const onPath = findProgram('openspec', env, specRoot);
  if (onPath !== null) return onPath;
  return findProgram(path.join(specRoot, 'node_modules', '.bin', 'openspec'), env, specRoot);
}

/** The CLI's report, or null when it could not give one (then ralphtool's own reading decides). */
async function validateWithCli(
  program: string,
  specRoot: string,
  change: string,
  env: NodeJS.ProcessEnv,
): Promise<ValidationIssue[] | null> {
  const result = await execProgram(program, ['validate', change, '--json', '--no-interactive'], {
    cwd: specRoot,
    baseEnv: env,
    env: { OPENSPEC_TELEMETRY: '0', NO_COLOR: '1' },
    timeoutMs: VALIDATE_TIMEOUT_MS,
    reject: false,
  });
  if (result.notFound || result.timedOut || result.signal !== null) return null;
  return readOpenSpecReport(result.stdout);
}
