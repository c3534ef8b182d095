import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseSpec, readSpecs } from '../../src/openspec/specs.js';
import { FIXTURE_CHANGES, makeTempDir, removeTempDir, writeTree } from './helpers.js';

const md = (...lines: string[]): string => lines.join('\n');

describe('parseSpec: steps', () => {
  it('reads bold, plain, colon and bulleted steps; AND and BUT join the step kind before them', () => {
    const [requirement] = parseSpec(
      md(
        '### Requirement: Login',
        'The system SHALL log users in.',
        '#### Scenario: Valid password',
        '- **GIVEN** a user',
        '- **AND** a password',
        '- **WHEN** they log in',
        'THEN they see the dashboard',
        '- **AND** a greeting',
        '**BUT:** no warning',
        '- When: lower-case bullet',
      ),
      'auth',
    );
    expect(requirement).toEqual({
      capability: 'auth',
      name: 'Login',
      operation: null,
      scenarios: [
        {
          name: 'Valid password',
          given: ['a user', 'a password'],
          when: ['they log in', 'lower-case bullet'],
          then: ['they see the dashboard', 'a greeting', 'no warning'],
        },
      ],
    });
  });

  it('appends continuation lines: sub-bullets, wrapped lines and indented code, not fence markers', () => {
    const [requirement] = parseSpec(
      md(
        '### Requirement: R',
        '#### Scenario: S',
        '- **WHEN** running `init`',
        'on a fresh project',
        '- **THEN** it lists:',
        '  - `CLAUDE.md`',
        '  - And other files',
        '',
        '  ```',
        '  openspec/',
        '  ```',
        '',
        'A closing paragraph that is not part of the step.',
        '- **AND** later step',
      ),
      'cli',
    );
    expect(requirement?.scenarios[0]).toEqual({
      name: 'S',
      given: [],
      when: ['running `init` on a fresh project'],
      then: ['it lists: - `CLAUDE.md` - And other files openspec/', 'later step'],
    });
  });

  it('does not take prose for steps', () => {
    const [requirement] = parseSpec(
      md(
        '### Requirement: R',
        '#### Scenario: S',
        'Whenever it rains',
        '',
        'When it snows, prose.',
        '- **WHEN** real',
      ),
      'c',
    );
    expect(requirement?.scenarios[0]).toMatchObject({ given: [], when: ['real'], then: [] });
  });

  it('puts an AND with no step before it under given', () => {
    const [requirement] = parseSpec(
      md('### Requirement: R', '#### Scenario: S', '- **AND** first'),
      'c',
    );
    expect(requirement?.scenarios[0]?.given).toEqual(['first']);
  });
});

describe('parseSpec: structure', () => {
  it('remembers the delta section of each requirement', () => {
    const requirements = parseSpec(
      md(
        '# Delta for Auth',
        '## ADDED Requirements',
        '### Requirement: A',
        '## Modified Requirements',
        '### Requirement: B ###',
        '## REMOVED Requirements',
        '### Requirement: C',
        '- `### Requirement: D`',
        '## RENAMED Requirements',
        '- FROM: `### Requirement: Old`',
        '- TO: `### Requirement: New`',
        '## Notes',
        '### Requirement: E',
      ),
      'auth',
    );
    expect(requirements.map((r) => `${r.operation ?? 'none'} ${r.name}`)).toEqual([
      'ADDED A',
      'MODIFIED B',
      'REMOVED C',
      'REMOVED D',
      'RENAMED New',
      'none E',
    ]);
  });

  it('ignores headings inside code fences', () => {
    const requirements = parseSpec(
      md(
        '## ADDED Requirements',
        '### Requirement: Real',
        '#### Scenario: Real one',
        '- **WHEN** x',
        '  ```markdown',
        '  ## RENAMED Requirements',
        '  #### Scenario: Fake',
        '  ```',
        '- **THEN** y',
        '### Requirement: Second',
      ),
      'c',
    );
    expect(requirements.map((r) => [r.operation, r.name, r.scenarios.map((s) => s.name)])).toEqual([
      ['ADDED', 'Real', ['Real one']],
      ['ADDED', 'Second', []],
    ]);
    expect(requirements[0]?.scenarios[0]?.then).toEqual(['y']);
  });

  it('ignores scenarios outside a requirement and ends a requirement at another `###` heading', () => {
    const requirements = parseSpec(
      md(
        '#### Scenario: Orphan',
        '- **WHEN** x',
        '### Requirement: R',
        '### Other heading',
        '#### Scenario: Lost',
        '- **WHEN** y',
      ),
      'c',
    );
    expect(requirements).toEqual([{ capability: 'c', name: 'R', operation: null, scenarios: [] }]);
  });

  it('handles a BOM, CRLF and an empty file', () => {
    const [requirement] = parseSpec(
      '\ufeff## ADDED Requirements\r\n### Requirement: R\r\n#### Scenario: S\r\n- **WHEN** x\r\n',
      'c',
    );
    expect(requirement).toMatchObject({
      operation: 'ADDED',
      name: 'R',
      scenarios: [{ name: 'S', when: ['x'] }],
    });
    expect(parseSpec('', 'c')).toEqual([]);
  });
});

describe('readSpecs', () => {
  let dir = '';
  afterEach(async () => removeTempDir(dir));

  it('reads a real delta spec with ADDED, MODIFIED and REMOVED requirements', async () => {
    const requirements = await readSpecs(
      join(FIXTURE_CHANGES, 'archive/2025-08-19-adopt-delta-based-changes/specs'),
      'specs',
    );
    expect(requirements.map((r) => r.capability)).toEqual(
      [...requirements.map((r) => r.capability)].sort(),
    );
    expect(requirements[0]).toMatchObject({
      capability: 'cli-archive',
      name: 'Spec Update Process',
      operation: 'MODIFIED',
    });
    expect(requirements[0]?.scenarios[0]).toEqual({
      name: 'Applying delta changes',
      given: [],
      when: ['archiving a change with delta-based specs'],
      then: [
        'parse and apply delta changes as defined in openspec-conventions',
        'validate all operations before applying',
      ],
    });
    expect(requirements.find((r) => r.name === 'Display Format')).toMatchObject({
      capability: 'cli-diff',
      operation: 'REMOVED',
    });
    expect(requirements).toHaveLength(8);
  });

  it('reads GIVEN steps from a real spec and sorts capabilities', async () => {
    const requirements = await readSpecs(
      join(FIXTURE_CHANGES, 'fix-cli-local-date-semantics/specs'),
      'specs',
    );
    expect(requirements.map((r) => r.capability)).toEqual(['change-creation', 'cli-archive']);
    const archive = requirements[1];
    expect(archive?.name).toBe('Local Archive Date');
    expect(archive?.scenarios[0]).toEqual({
      name: 'Archive crosses a UTC date boundary',
      given: [
        "the CLI process's effective local time zone is `Asia/Shanghai`",
        'the current instant is `2026-07-14T16:30:00.000Z`',
      ],
      when: ['the user archives a change named `add-auth`'],
      then: ['the target archive name begins with `2026-07-15-add-auth`'],
    });
  });

  it('does not count a scenario written inside a code fence', async () => {
    const requirements = await readSpecs(
      join(FIXTURE_CHANGES, 'archive/2025-08-19-improve-validate-error-messages/specs'),
      'specs',
    );
    const names = requirements.flatMap((r) => r.scenarios.map((s) => s.name));
    expect(names).toHaveLength(5);
    expect(names).not.toContain('Short name');
  });

  it('ignores Markdown files that are not `<capability>/spec.md`', async () => {
    for (const change of [
      'archive/2025-08-11-add-complexity-guidelines',
      'archive/2026-01-30-opencode-command-references',
    ]) {
      expect(await readSpecs(join(FIXTURE_CHANGES, change, 'specs'), 'specs')).toEqual([]);
    }
  });

  it('sorts by capability whatever the write order, and reads nested capability folders', async () => {
    dir = await makeTempDir();
    const spec = (name: string): string =>
      md('### Requirement: ' + name, '#### Scenario: S', '- **WHEN** x');
    await writeTree(dir, {
      'specs/zeta/spec.md': spec('Z'),
      'specs/api/login/spec.md': spec('Nested'),
      'specs/alpha/spec.md': md(spec('A1'), spec('A2')),
      'specs/spec.md': spec('Top level, ignored'),
      'specs/.hidden/spec.md': spec('Hidden, ignored'),
    });
    const requirements = await readSpecs(join(dir, 'specs'), 'specs');
    expect(requirements.map((r) => `${r.capability}:${r.name}`)).toEqual([
      'alpha:A1',
      'alpha:A2',
      'api/login:Nested',
      'zeta:Z',
    ]);
  });

  it('returns nothing when specs/ is missing', async () => {
    dir = await makeTempDir();
    expect(await readSpecs(join(dir, 'specs'), 'specs')).toEqual([]);
  });
});
