import { describe, expect, it } from 'vitest';
import { renderChange } from '../../src/cli/render/show.js';
import type { Change } from '../../src/core/change.js';
import { plainStyle } from '../../src/format/style.js';
import { parseSpec } from '../../src/openspec/spec-parser.js';
import { previewFrame } from '../../src/ui/view/preview-frame.js';
import type { Row } from '../../src/ui/view/frame.js';

/** A spec whose steps use AND and BUT, and whose text holds runs of spaces on purpose. */
const SPEC = [
  '## ADDED Requirements',
  '',
  '### Requirement: Table output',
  '',
  '#### Scenario: Columns line up',
  '- **GIVEN** two rows',
  '- **AND** a header',
  '- **WHEN** the user runs `list`',
  '- **THEN** it prints `NAME  STORIES`',
  '- **AND** `a     1/2` with five spaces',
  '- **BUT** no tab characters',
  '',
].join('\n');

function specChange(): Change {
  return {
    name: 'tables',
    path: 'openspec/changes/tables',
    stories: [],
    proposal: null,
    design: null,
    requirements: parseSpec(SPEC, 'output'),
  };
}

const text = (rows: Row[]): string[] => rows.map((r) => r.map((s) => s.text).join(''));

describe('scenario steps as shown by `show` and the UI preview', () => {
  it('show prints the steps after the first of a kind as AND, not as GIVEN/WHEN/THEN again', () => {
    const lines = renderChange(specChange(), plainStyle)
      .split('\n')
      .map((l) => l.trim());
    const steps = lines.slice(lines.findIndex((l) => l.startsWith('• Columns line up')) + 1);
    expect(steps.slice(0, 6)).toEqual([
      'GIVEN two rows',
      'AND a header',
      'WHEN the user runs `list`',
      'THEN it prints `NAME  STORIES`',
      'AND `a     1/2` with five spaces',
      'AND no tab characters',
    ]);
  });

  it('the preview keeps runs of spaces: it never changes what a scenario says', () => {
    const frame = previewFrame(
      {
        name: 'tables',
        change: { status: 'ready', value: specChange() },
        tab: 'scenarios',
        scroll: { tasks: 0, scenarios: 0 },
      },
      { agent: 'claude', maxRetries: 2, agentTimeoutMs: 0, idleTimeoutMs: 0, verify: [] },
      { columns: 100, rows: 30 },
    );
    const rows = text(frame.body).map((l) => l.trim());
    expect(rows).toContain('THEN it prints `NAME  STORIES`');
    expect(rows).toContain('AND `a     1/2` with five spaces');
    expect(rows).toContain('AND no tab characters');
  });
});
