import type { Style } from '../format/style.js';
import { oneLine } from '../format/text.js';
import { plural } from '../format/units.js';
import type { CheckResult, CheckStatus } from './checks.js';

const SYMBOL: Record<CheckStatus, string> = { ok: '✓', warn: '!', fail: '✗' };

/** One line per check, its fix on the line below, and a verdict. Pure. */
export function renderDoctor(results: readonly CheckResult[], style: Style): string {
  const width = Math.max(...results.map((r) => r.label.length)) + 2;
  const colour: Record<CheckStatus, (text: string) => string> = {
    ok: style.green,
    warn: style.yellow,
    fail: style.red,
  };
  const lines: string[] = [];
  for (const result of results) {
    const label = result.label.padEnd(width);
    lines.push(`${colour[result.status](SYMBOL[result.status])} ${label}${oneLine(result.detail)}`);
    if (result.fix !== null) {
      lines.push(`  ${' '.repeat(width)}${style.dim('fix:')} ${oneLine(result.fix)}`);
    }
  }
  const failures = results.filter((r) => r.status === 'fail').length;
  lines.push(
    '',
    failures === 0
      ? style.green('Ready: `ralphtool run <change>` can run with the default agent (claude).')
      : style.red(
          `Not ready: ${plural(failures, 'problem')} (✗) stop \`ralphtool run\` with the default agent; see the fixes above.`,
        ),
  );
  return `${lines.join('\n')}\n`;
}
