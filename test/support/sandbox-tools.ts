import { execFileSync } from 'node:child_process';

/** The Debian packages `--sandbox` needs (.ci/run installs them). */
const TOOLS = [
  ['bwrap', '--version'],
  ['socat', '-V'],
  ['rg', '--version'],
] as const;

/**
 * Whether the sandbox's programs are here. A contributor without them gets the sandbox tests
 * skipped; under CI (CI=true, where .ci/run installs them) a missing one fails the test file,
 * so a green CI never hides skipped sandbox tests.
 */
export function sandboxToolsAvailable(): boolean {
  const missing = TOOLS.filter(([tool, flag]) => {
    try {
      execFileSync(tool, [flag], { stdio: 'ignore' });
      return false;
    } catch {
      return true;
    }
  }).map(([tool]) => tool);
  if (missing.length === 0) return true;
  if (process.env.CI === 'true' || process.env.CI === '1') {
    throw new Error(
      `${missing.join(', ')} required when CI is set (the sandbox tests would be skipped): apt-get install bubblewrap socat ripgrep`,
    );
  }
  return false;
}
