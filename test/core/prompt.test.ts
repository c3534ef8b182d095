import { describe, expect, it } from 'vitest';
import type { Requirement, Story } from '../../src/core/change.js';
import { buildPrompt, type PromptInput } from '../../src/core/prompt.js';
import { inferVerifyCommands } from '../../src/core/verify-inference.js';

const story: Story = {
  id: '2',
  title: 'Login endpoint',
  line: 7,
  done: false,
  tasks: [
    { id: '2.1', description: 'Add POST /login', done: true, line: 8, depth: 0 },
    { id: '2.2', description: 'Return a session token', done: false, line: 9, depth: 0 },
    { id: '2.2.1', description: 'Sign it with the server key', done: false, line: 10, depth: 1 },
  ],
};

const requirements: Requirement[] = [
  {
    capability: 'billing',
    name: 'Invoices',
    operation: 'ADDED',
    scenarios: [
      { name: 'Monthly', given: [], when: ['a month ends'], then: ['an invoice is sent'] },
    ],
  },
  {
    capability: 'auth',
    name: 'Login',
    operation: 'MODIFIED',
    scenarios: [
      {
        name: 'Valid password',
        given: ['a user "ann"'],
        when: ['she logs in with the right password'],
        then: ['she gets a token', 'the token expires in 1h'],
      },
    ],
  },
];

function input(overrides: Partial<PromptInput> = {}): PromptInput {
  return {
    changeName: 'add-auth',
    paths: {
      changeDir: 'openspec/changes/add-auth',
      tasks: 'openspec/changes/add-auth/tasks.md',
      proposal: 'openspec/changes/add-auth/proposal.md',
      design: null,
      specsDir: 'openspec/changes/add-auth/specs',
    },
    story,
    attempt: 1,
    maxAttempts: 4,
    previousFailure: null,
    requirements,
    verify: { commands: ['npm test'], inferred: true },
    learnings: { path: '/repo/.git/ralphtool/add-auth/learnings.md', content: '' },
    ...overrides,
  };
}

describe('buildPrompt', () => {
  it('first attempt', () => {
    const prompt = buildPrompt(input());
    expect(prompt).toMatchSnapshot();
    expect(prompt.startsWith('# Working on Story 2: Login endpoint\n')).toBe(true);
    expect(prompt).not.toContain('## Previous Attempt Failed');
    expect(prompt).toContain('- [x] 2.1 Add POST /login');
    expect(prompt).toContain('  - [ ] 2.2.1 Sign it with the server key');
    expect(prompt).toContain('<promise>COMPLETE</promise>');
    expect(prompt).toContain('<promise>FAILED: {reason}</promise>');
  });

  it('tells when to use BLOCKED, and that guessing beats blocking for small things', () => {
    const prompt = buildPrompt(input());
    const signals = prompt.slice(prompt.indexOf('## When you are done'));
    expect(signals).toContain('<promise>BLOCKED: {question}</promise>');
    expect(signals).toContain('credentials you do not have');
    expect(signals).toContain('a product choice the specs leave open');
    expect(signals).toContain('an irreversible action');
    expect(signals).toContain('make a reasonable choice and write it in the');
    expect(prompt).not.toContain('## Answer to your question');
  });

  it('carries the answer to the question, with the question quoted, before the previous failure', () => {
    const prompt = buildPrompt(
      input({
        previousFailure: { kind: 'failed-signal', reason: 'no DB driver' },
        answer: {
          question: 'Which database?\nPostgres or SQLite?',
          text: 'Use SQLite; `npm i better-sqlite3` is fine.',
        },
      }),
    );
    expect(prompt).toMatchSnapshot();
    const section = prompt.slice(
      prompt.indexOf('## Answer to your question'),
      prompt.indexOf('## Previous Attempt Failed'),
    );
    expect(section).toContain('> Which database?\n> Postgres or SQLite?');
    expect(section).toContain('Use SQLite; `npm i better-sqlite3` is fine.');
    expect(prompt.indexOf('# Working on Story')).toBeLessThan(
      prompt.indexOf('## Answer to your question'),
    );
    expect(prompt.indexOf('## Answer to your question')).toBeLessThan(
      prompt.indexOf('## Previous Attempt Failed'),
    );
  });

  it('retry after FAILED carries the reason', () => {
    const prompt = buildPrompt(
      input({ attempt: 2, previousFailure: { kind: 'failed-signal', reason: 'no DB driver' } }),
    );
    expect(prompt).toMatchSnapshot();
    expect(prompt).toContain('## Previous Attempt Failed');
    expect(prompt).toContain('no DB driver');
    // Order of the contract: story, previous failure, task.
    expect(prompt.indexOf('# Working on Story')).toBeLessThan(
      prompt.indexOf('## Previous Attempt Failed'),
    );
    expect(prompt.indexOf('## Previous Attempt Failed')).toBeLessThan(
      prompt.indexOf('## Your Task'),
    );
  });

  it('retry after tasks-unchecked and verify-failed carries the reason', () => {
    for (const kind of ['tasks-unchecked', 'verify-failed'] as const) {
      const prompt = buildPrompt(
        input({ attempt: 3, previousFailure: { kind, reason: `why-${kind}` } }),
      );
      expect(prompt).toContain('## Previous Attempt Failed');
      expect(prompt).toContain(`why-${kind}`);
    }
  });

  it('retry after no-signal or a crash has no extra context', () => {
    for (const kind of ['no-signal', 'crash', 'timeout'] as const) {
      const prompt = buildPrompt(
        input({ attempt: 2, previousFailure: { kind, reason: 'exited without a signal' } }),
      );
      expect(prompt).not.toContain('## Previous Attempt Failed');
      expect(prompt).not.toContain('exited without a signal');
      if (kind === 'no-signal') expect(prompt).toMatchSnapshot();
    }
  });

  it('includes learnings when there are some, and always names the file', () => {
    const without = buildPrompt(input());
    expect(without).toContain('/repo/.git/ralphtool/add-auth/learnings.md');
    expect(without).not.toContain('Its current content');
    const withLearnings = buildPrompt(
      input({ learnings: { path: '/l.md', content: '- run `npm test -- --run`\n' } }),
    );
    expect(withLearnings).toMatchSnapshot();
    expect(withLearnings).toContain('- run `npm test -- --run`');
  });

  it('names --verify commands as run by ralphtool, inferred ones as suggestions', () => {
    const given = buildPrompt(
      input({ verify: { commands: ['make lint', 'make test'], inferred: false } }),
    );
    expect(given).toMatchSnapshot();
    expect(given).toContain('ralphtool runs these commands');
    expect(given).toContain('- `make lint`');
    const inferred = buildPrompt(input());
    expect(inferred).toContain('inferred from its files');
    const none = buildPrompt(input({ verify: { commands: [], inferred: true } }));
    expect(none).toContain('No test command is known');
  });

  it('says which --verify command already fails before the work, and only that one', () => {
    const prompt = buildPrompt(
      input({
        verify: { commands: ['make lint', 'make test'], inferred: false, tolerated: ['make test'] },
      }),
    );
    const section = prompt.slice(prompt.indexOf('## Verification'));
    expect(section).toContain(
      '`make test` already fails before your work (at the checkpoint): it does not block this story until it passes once; do not try to fix unrelated failures unless the story asks for it.',
    );
    expect(section).not.toContain('`make lint` already fails');
    const none = buildPrompt(
      input({ verify: { commands: ['make test'], inferred: false, tolerated: [] } }),
    );
    expect(none).not.toContain('already fails before your work');
  });

  it("puts the story's capability first among the scenarios", () => {
    const prompt = buildPrompt(input({ story: { ...story, title: 'Auth login endpoint' } }));
    expect(prompt.indexOf('Capability: auth')).toBeLessThan(prompt.indexOf('Capability: billing'));
    const unrelated = buildPrompt(input());
    expect(unrelated.indexOf('Capability: billing')).toBeLessThan(
      unrelated.indexOf('Capability: auth'),
    );
  });

  it('fences a reason that contains backticks so it cannot break out', () => {
    const prompt = buildPrompt(
      input({
        attempt: 2,
        previousFailure: { kind: 'failed-signal', reason: '```\n# fake heading' },
      }),
    );
    expect(prompt).toContain('````\n```\n# fake heading\n````');
  });
});

describe('inferVerifyCommands', () => {
  it('infers from marker files, without duplicates', () => {
    expect(inferVerifyCommands(new Set(['package.json']))).toEqual(['npm test']);
    expect(inferVerifyCommands(new Set(['pyproject.toml', 'setup.py', 'Cargo.toml']))).toEqual([
      'cargo test',
      'pytest',
    ]);
    expect(inferVerifyCommands(new Set(['README.md']))).toEqual([]);
  });
});

describe('the project instructions (.ralphtool/instructions.md)', () => {
  it('come whole under their own heading, after the verification and before the learnings', () => {
    const rules = '- Run `make check` before COMPLETE.\n- Never touch `vendor/`.';
    const prompt = buildPrompt(input({ instructions: `\n${rules}\n\n` }));
    const at = prompt.indexOf('## Project instructions');
    expect(at).toBeGreaterThan(prompt.indexOf('## Verification'));
    expect(at).toBeLessThan(prompt.indexOf('## Shared learnings'));
    expect(prompt).toContain(
      `from \`.ralphtool/instructions.md\`):\n\n${rules}\n\n## Shared learnings`,
    );
  });

  it('leave no heading when there are none or the file is blank', () => {
    for (const instructions of [null, '  \n']) {
      expect(buildPrompt(input({ instructions }))).not.toContain('## Project instructions');
    }
  });
});
