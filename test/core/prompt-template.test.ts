import { describe, expect, it } from 'vitest';
import type { Story } from '../../src/core/change.js';
import { buildPrompt, type PromptInput } from '../../src/core/prompt.js';
import {
  checkTemplate,
  fillTemplate,
  PLACEHOLDERS,
  REQUIRED_PLACEHOLDERS,
  templateProblem,
} from '../../src/core/prompt-template.js';

// docs/contract.md, "The prompt template": `.ralphtool/prompt.md` replaces the built-in prompt.

const story: Story = {
  id: '3',
  title: 'Export as CSV',
  line: 4,
  done: false,
  tasks: [{ id: '3.1', description: 'Add the export', done: false, line: 5, depth: 0 }],
};

function input(overrides: Partial<PromptInput> = {}): PromptInput {
  return {
    changeName: 'export',
    paths: {
      changeDir: 'openspec/changes/export',
      tasks: 'openspec/changes/export/tasks.md',
      proposal: 'openspec/changes/export/proposal.md',
      design: 'openspec/changes/export/design.md',
      specsDir: null,
    },
    story,
    attempt: 2,
    maxAttempts: 3,
    previousFailure: { kind: 'failed-signal', reason: 'the CSV library is missing' },
    requirements: [
      {
        capability: 'export',
        name: 'CSV',
        operation: 'ADDED',
        scenarios: [{ name: 'Rows', given: [], when: ['I export'], then: ['I get rows'] }],
      },
    ],
    verify: { commands: ['npm test'], inferred: false },
    learnings: { path: '/tmp/learnings.md', content: 'use papaparse' },
    answer: { question: 'Which separator?', text: 'A semicolon.' },
    instructions: 'No tabs.',
    ...overrides,
  };
}

/** Every input shape the parts have: each optional part present and absent. */
const INPUTS: PromptInput[] = [
  input(),
  input({ previousFailure: null, answer: null, instructions: null, requirements: [] }),
  input({
    learnings: { path: '/tmp/l.md', content: '' },
    verify: { commands: [], inferred: true },
  }),
  input({ previousFailure: { kind: 'crash', reason: 'exit 1' } }),
];

const WHOLE = PLACEHOLDERS.map((name) => `{{${name}}}`).join('\n\n');

describe('a prompt template', () => {
  it('naming every placeholder in the built-in order gives the built-in prompt, for every input', () => {
    for (const each of INPUTS) {
      expect(buildPrompt({ ...each, template: WHOLE })).toBe(buildPrompt(each));
    }
  });

  it("puts the project's own words around the parts, and leaves out what it does not name", () => {
    const template = [
      '# Our house prompt',
      '',
      '{{story}}',
      '',
      'Read CONTRIBUTING.md first.',
      '',
      '{{ answer }}',
      '',
      '{{tasks}}',
      '',
      '{{signals}}',
    ].join('\n');
    const prompt = buildPrompt(input({ template }));
    expect(prompt.startsWith('# Our house prompt\n\n# Working on Story 3: Export as CSV\n')).toBe(
      true,
    );
    expect(prompt).toContain('Read CONTRIBUTING.md first.');
    expect(prompt).toContain('A semicolon.');
    expect(prompt).toContain('- [ ] 3.1 Add the export');
    expect(prompt).toContain('<promise>COMPLETE</promise>');
    expect(prompt).not.toContain('## Shared learnings');
    expect(prompt).not.toContain('the CSV library is missing');
  });

  it('closes up the blank lines an empty part leaves', () => {
    const template = '{{story}}\n\n{{answer}}\n\n{{previous-failure}}\n\n{{tasks}}\n\n{{signals}}';
    const prompt = buildPrompt(input({ answer: null, previousFailure: null, template }));
    expect(prompt).not.toMatch(/\n\n\n/);
    expect(prompt).toMatch(/Export as CSV\n\nChange: .*\n\n## Tasks of this story/);
    expect(prompt.endsWith('\n')).toBe(true);
  });

  it('never reads a placeholder inside what a part holds (one pass)', () => {
    const parts = Object.fromEntries(PLACEHOLDERS.map((name) => [name, null])) as Record<
      (typeof PLACEHOLDERS)[number],
      string | null
    >;
    const filled = fillTemplate('{{learnings}} {{story}}', {
      ...parts,
      learnings: 'write {{story}} here',
      story: 'S',
    });
    expect(filled).toBe('write {{story}} here S\n');
  });

  it('is refused without each required placeholder, naming every one it lacks', () => {
    for (const left of REQUIRED_PLACEHOLDERS) {
      const text = REQUIRED_PLACEHOLDERS.filter((n) => n !== left)
        .map((n) => `{{${n}}}`)
        .join('\n');
      expect(checkTemplate(text)).toEqual({ missing: [left], unknown: [] });
    }
    expect(checkTemplate('Just words.').missing).toEqual(REQUIRED_PLACEHOLDERS);
  });

  it('is refused for a name that is no placeholder, with the nearest one', () => {
    const text = `${WHOLE}\n{{storry}} {{previous_failure}} {{budget}}`;
    expect(checkTemplate(text)).toEqual({
      missing: [],
      unknown: ['storry', 'previous_failure', 'budget'],
    });
    const line = templateProblem(text, '/repo/.ralphtool/prompt.md');
    expect(line).toContain(
      '/repo/.ralphtool/prompt.md: unknown {{storry}} (did you mean {{story}}?), {{previous_failure}} (did you mean {{previous-failure}}?), {{budget}}:',
    );
    expect(line).not.toContain('\n');
  });

  it('says what is missing and what is unknown in one line that lists the placeholders', () => {
    const line = templateProblem('{{story}} {{signal}}', '.ralphtool/prompt.md');
    expect(line).toBe(
      '.ralphtool/prompt.md: missing {{tasks}}, {{answer}}, {{signals}}; unknown {{signal}} (did you mean {{signals}}?): a prompt template needs {{story}}, {{tasks}}, {{answer}}, {{signals}} and may name {{previous-failure}}, {{scope}}, {{change}}, {{scenarios}}, {{verify}}, {{instructions}}, {{learnings}} (docs/contract.md, "The prompt template")',
    );
    expect(templateProblem(WHOLE, '.ralphtool/prompt.md')).toBeNull();
  });
});
