import { describe, expect, it } from 'vitest';
import {
  readOpenSpecReport,
  validateRequirements,
  validationRefusal,
} from '../../src/core/change-validation.js';
import { parseSpec } from '../../src/openspec/specs.js';

const SCENARIO = '#### Scenario: S\n- **WHEN** a\n- **THEN** b\n';

describe("ralphtool's own reading of a change's specs", () => {
  it('finds nothing wrong in a valid delta spec of every operation', () => {
    const spec = [
      '## ADDED Requirements',
      `### Requirement: New\nThe system SHALL be new.\n\n${SCENARIO}`,
      '## MODIFIED Requirements',
      `### Requirement: Old\nThe system SHALL change.\n\n${SCENARIO}`,
      '## REMOVED Requirements',
      '### Requirement: Gone',
      '## RENAMED Requirements',
      '- FROM: `### Requirement: A`',
      '- TO: `### Requirement: B`',
    ].join('\n');
    expect(validateRequirements(parseSpec(spec, 'cap'))).toEqual([]);
  });

  it.each([
    ['ADDED', 'Bare'],
    ['MODIFIED', 'Changed'],
  ])('refuses an %s requirement without a scenario', (op, name) => {
    const spec = `## ${op} Requirements\n\n### Requirement: ${name}\nIt SHALL.\n`;
    expect(validateRequirements(parseSpec(spec, 'auth'))).toEqual([
      { path: 'auth/spec.md', message: `${op} "${name}" must include at least one scenario` },
    ]);
  });

  it('refuses a requirement outside any delta header', () => {
    const issues = validateRequirements(
      parseSpec(`# Auth\n\n### Requirement: Loose\n\n${SCENARIO}`, 'auth'),
    );
    expect(issues).toHaveLength(1);
    expect(issues[0]?.message).toContain('"Loose" is not under a delta header');
  });

  it('refuses the same requirement twice in one section, whatever its case', () => {
    const spec = `## ADDED Requirements\n### Requirement: Twice\n${SCENARIO}\n### Requirement: twice\n${SCENARIO}`;
    expect(validateRequirements(parseSpec(spec, 'c')).map((i) => i.message)).toEqual([
      'ADDED "twice" is there twice',
    ]);
  });
});

describe("openspec validate's JSON report", () => {
  const report = (issues: unknown[]): string =>
    JSON.stringify({ items: [{ valid: false, issues }] });

  it('keeps the errors and drops the warnings', () => {
    const issues = readOpenSpecReport(
      report([
        { level: 'WARNING', path: 'a/spec.md', message: 'should contain SHALL' },
        { level: 'ERROR', path: 'a/spec.md', message: 'needs a scenario' },
        { level: 'ERROR', message: 'no deltas' },
      ]),
    );
    expect(issues).toEqual([
      { path: 'a/spec.md', message: 'needs a scenario' },
      { path: 'change', message: 'no deltas' },
    ]);
  });

  it.each([
    ['not JSON', 'Change x is valid'],
    ['no items', '{}'],
    ['items empty', '{"items":[]}'],
    ['issues missing', '{"items":[{"valid":true}]}'],
    ['an issue without a message', report([{ level: 'ERROR' }])],
    ['null', 'null'],
  ])('is not read when %s (the own reader decides)', (_why, stdout) => {
    expect(readOpenSpecReport(stdout)).toBeNull();
  });
});

describe('the refusal', () => {
  it('is one line: the first issue, how many more, the command that lists them', () => {
    const line = validationRefusal(
      'add-x',
      [
        { path: 'a/spec.md', message: 'one' },
        { path: 'b/spec.md', message: 'two' },
      ],
      'openspec validate add-x',
    );
    expect(line).toBe(
      'change add-x is not valid: a/spec.md: one (and 1 more); fix its specs, then run again (`openspec validate add-x` lists every issue)',
    );
    expect(line).not.toContain('\n');
  });
});
