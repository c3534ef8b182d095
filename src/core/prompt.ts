import type { Requirement, Scenario, Story } from './change.js';
import type { AttemptFailure, FailureKind } from './events.js';
import { fillTemplate, PLACEHOLDERS, type Placeholder } from './prompt-template.js';

export interface PromptChangePaths {
  /** Paths relative to the repository root, POSIX separators. */
  changeDir: string;
  tasks: string;
  proposal: string | null;
  design: string | null;
  specsDir: string | null;
}

export interface PromptInput {
  changeName: string;
  paths: PromptChangePaths;
  story: Story;
  attempt: number;
  maxAttempts: number;
  /** How the previous attempt of this story ended, if it failed. */
  previousFailure: AttemptFailure | null;
  requirements: readonly Requirement[];
  verify: {
    commands: readonly string[];
    inferred: boolean;
    /** `--verify` commands that already fail at the checkpoint and do not block yet (the ratchet). */
    tolerated?: readonly string[];
    /** `--allow-test-changes`: the test gate reports changes to the tests instead of failing them. */
    testChangesAllowed?: boolean;
  };
  learnings: { path: string; content: string };
  /** The person's answer to the question an earlier attempt of this story asked (BLOCKED). */
  answer?: { question: string; text: string } | null;
  /** The project's own instructions for agents (`.ralphtool/instructions.md`), when it has any. */
  instructions?: string | null;
  /**
   * The project's template (`.ralphtool/prompt.md`, checked by core/prompt-template.ts), recorded
   * with the run's intent; null or absent: the built-in prompt.
   */
  template?: string | null;
  /** The attempt fixes what the independent review rejected: the round and its reasons. */
  reviewFix?: { round: number; reasons: string };
}

/**
 * Failures whose reason helps the next attempt; a crash, silence or a stop by the user says
 * nothing useful.
 */
const FAILURES_WITH_CONTEXT: ReadonlySet<FailureKind> = new Set([
  'failed-signal',
  'tasks-unchecked',
  'tasks-edited',
  'verify-failed',
  'secret-written',
  'tests-weakened',
  'conflict-markers',
]);

/** Beyond this the scenarios are cut and the agent is pointed at the spec files. */
const MAX_SCENARIO_CHARS = 24_000;
const MAX_LEARNINGS_CHARS = 16_000;

/** Builds the agent's prompt for one attempt (docs/contract.md, "The prompt"): pure, deterministic. */
export function buildPrompt(input: PromptInput): string {
  const parts = promptParts(input);
  if (input.template) return fillTemplate(input.template, parts);
  // The built-in prompt is the template naming every part in order.
  const sections = PLACEHOLDERS.map((name) => parts[name]);
  return `${sections.filter((s) => s !== null).join('\n\n')}\n`;
}

/** Each placeholder's part of the prompt; null when it has nothing to say for this attempt. */
function promptParts(input: PromptInput): Record<Placeholder, string | null> {
  return {
    // A review's fix goes with the story: every template names it (a required placeholder).
    story: [storyHeader(input), reviewFixSection(input)].filter((p) => p !== null).join('\n\n'),
    answer: answerSection(input),
    'previous-failure': previousFailureSection(input),
    scope: taskSection(input),
    tasks: tasksChecklist(input),
    change: changeLocation(input),
    scenarios: scenariosSection(input),
    verify: verifySection(input),
    instructions: instructionsSection(input),
    learnings: learningsSection(input),
    signals: signalsSection(),
  };
}

function storyHeader({ story, changeName, attempt, maxAttempts }: PromptInput): string {
  return [
    `# Working on Story ${story.id}: ${story.title}`,
    '',
    `Change: \`${changeName}\` · attempt ${attempt} of ${maxAttempts}`,
  ].join('\n');
}

/** A review's fix attempt: what the reviewer found, to be fixed; no task to tick for it. */
function reviewFixSection({ reviewFix }: PromptInput): string | null {
  if (reviewFix === undefined) return null;
  return [
    `## The independent review rejected the change (round ${reviewFix.round})`,
    '',
    'Every story was accepted, then a reviewer judged the whole change against its scenarios and rejected it:',
    '',
    fence(reviewFix.reasons),
    '',
    'Fix what it found. This attempt has no task to tick in tasks.md: signal COMPLETE once the fixes are done',
    'and the checks pass; a new review follows.',
  ].join('\n');
}

function answerSection({ answer }: PromptInput): string | null {
  if (!answer) return null;
  return [
    '## Answer to your question',
    '',
    'An earlier attempt at this story stopped to ask:',
    '',
    ...answer.question.split('\n').map((line) => `> ${line}`.trimEnd()),
    '',
    'The answer:',
    '',
    fence(answer.text),
    '',
    'Its changes were reverted: start again from the last checkpoint and follow this answer.',
  ].join('\n');
}

function previousFailureSection({ previousFailure }: PromptInput): string | null {
  if (!previousFailure || !FAILURES_WITH_CONTEXT.has(previousFailure.kind)) return null;
  const why: Partial<Record<FailureKind, string>> = {
    'failed-signal': 'The previous attempt gave up with this reason:',
    'tasks-unchecked':
      'The previous attempt said COMPLETE, but these tasks were still unchecked in tasks.md:',
    'verify-failed': 'The previous attempt said COMPLETE, but a verification command failed:',
    'tasks-edited':
      "The previous attempt changed its own story's tasks instead of only ticking them:",
    'secret-written': 'The previous attempt said COMPLETE, but it wrote a secret into a file:',
    'tests-weakened':
      'The previous attempt said COMPLETE, but it weakened the tests instead of passing them:',
    'conflict-markers': 'The previous attempt said COMPLETE, but it left conflicts unresolved:',
  };
  return [
    '## Previous Attempt Failed',
    '',
    why[previousFailure.kind] ?? 'The previous attempt failed:',
    '',
    fence(previousFailure.reason),
    '',
    'Its changes were reverted: you start again from the last checkpoint. Avoid repeating what went wrong.',
  ].join('\n');
}

function taskSection({ story }: PromptInput): string {
  return [
    '## Your Task',
    '',
    `Implement Story ${story.id} ("${story.title}") and nothing else. Work only on the tasks listed below;`,
    'the orchestrator moves on to the next story after this one. Do not commit, switch branches or',
    'rewrite git history: ralphtool makes a checkpoint commit when the story is accepted.',
  ].join('\n');
}

function tasksChecklist({ story }: PromptInput): string {
  const lines = story.tasks.map((task) => {
    const indent = '  '.repeat(Math.min(task.depth, 6));
    return `${indent}- [${task.done ? 'x' : ' '}] ${task.id} ${task.description}`;
  });
  return ['## Tasks of this story', '', ...lines].join('\n');
}

function changeLocation({ paths }: PromptInput): string {
  const lines = ['## Where the change lives', '', `- Tasks: \`${paths.tasks}\``];
  if (paths.proposal) lines.push(`- Proposal: \`${paths.proposal}\``);
  if (paths.design) lines.push(`- Design: \`${paths.design}\``);
  if (paths.specsDir) lines.push(`- Specs: \`${paths.specsDir}\``);
  lines.push(
    '',
    `When a task is done, tick it in \`${paths.tasks}\` by changing its \`- [ ]\` to \`- [x]\`.`,
    "Do not edit other stories' tasks. A story is accepted only when every one of its tasks is ticked.",
  );
  return lines.join('\n');
}

function scenariosSection({ requirements, story, paths }: PromptInput): string | null {
  if (requirements.length === 0) return null;
  const ordered = orderByRelevance(requirements, story);
  const out: string[] = ['## Scenarios of the change'];
  let size = 0;
  let capability: string | null = null;
  for (const requirement of ordered) {
    const block: string[] = [];
    if (requirement.capability !== capability) {
      capability = requirement.capability;
      block.push('', `### Capability: ${capability}`);
    }
    const op = requirement.operation ? ` (${requirement.operation})` : '';
    block.push('', `#### Requirement: ${requirement.name}${op}`);
    for (const scenario of requirement.scenarios) block.push(...scenarioLines(scenario));
    const text = block.join('\n');
    if (size + text.length > MAX_SCENARIO_CHARS) {
      const where = paths.specsDir ? ` in \`${paths.specsDir}\`` : '';
      out.push('', `(More scenarios${where}: read the spec files for the rest.)`);
      break;
    }
    size += text.length;
    out.push(text);
  }
  return out.join('\n');
}

function scenarioLines(scenario: Scenario): string[] {
  const lines = [`- Scenario: ${scenario.name}`];
  for (const step of scenario.given) lines.push(`  - GIVEN ${step}`);
  for (const step of scenario.when) lines.push(`  - WHEN ${step}`);
  for (const step of scenario.then) lines.push(`  - THEN ${step}`);
  return lines;
}

/**
 * Puts first the capabilities the story names (in its title or tasks), keeping the
 * original order otherwise. Stable, so the same input always gives the same prompt.
 */
function orderByRelevance(requirements: readonly Requirement[], story: Story): Requirement[] {
  const text = [story.title, ...story.tasks.map((t) => t.description)].join(' ').toLowerCase();
  const mentioned = (capability: string): boolean =>
    text.includes(capability.toLowerCase()) ||
    text.includes(capability.toLowerCase().replace(/-/g, ' '));
  const first = requirements.filter((r) => mentioned(r.capability));
  const rest = requirements.filter((r) => !mentioned(r.capability));
  return [...first, ...rest];
}

function verifySection({ verify }: PromptInput): string {
  if (verify.commands.length === 0) {
    return [
      '## Verification',
      '',
      'No test command is known for this project: check your work with whatever the project provides.',
      '',
      testsRule(verify.testChangesAllowed === true),
    ].join('\n');
  }
  const intro = verify.inferred
    ? 'These commands look like the way to check this project (inferred from its files):'
    : 'ralphtool runs these commands after you signal COMPLETE; the story is accepted only if they all pass:';
  const lines = ['## Verification', '', intro, '', ...verify.commands.map((c) => `- \`${c}\``)];
  for (const command of verify.tolerated ?? []) {
    lines.push(
      '',
      `\`${command}\` already fails before your work (at the checkpoint): it does not block this story until it passes once; do not try to fix unrelated failures unless the story asks for it.`,
    );
  }
  lines.push('', testsRule(verify.testChangesAllowed === true));
  return lines.join('\n');
}

/** The test gate's rule, told before the attempt rather than learnt from a failure. */
function testsRule(allowed: boolean): string {
  const what =
    'Do not delete, empty or skip existing tests, or change what the test commands run (test scripts, test runner configuration)';
  return allowed
    ? `${what} unless the story needs it: this run lets such changes through, and reports them.`
    : `${what}: ralphtool fails such an attempt unless a task of this story asks for it.`;
}

/** The house rules are the project's words: given whole, under a heading of their own. */
function instructionsSection({ instructions }: PromptInput): string | null {
  const text = instructions?.trim() ?? '';
  if (text === '') return null;
  return [
    '## Project instructions',
    '',
    'The project asks every agent working on it to follow these (from `.ralphtool/instructions.md`):',
    '',
    text,
  ].join('\n');
}

function learningsSection({ learnings }: PromptInput): string {
  const lines = [
    '## Shared learnings',
    '',
    `The file \`${learnings.path}\` is kept across attempts and stories (it is outside the repository, so a`,
    'revert never erases it). Append to it what the next attempt should know: commands that work,',
    'pitfalls you hit, conventions of this codebase. Keep entries short; do not repeat what is there.',
  ];
  const content = learnings.content.trim();
  if (content) {
    const shown =
      content.length > MAX_LEARNINGS_CHARS
        ? `…${content.slice(content.length - MAX_LEARNINGS_CHARS)}`
        : content;
    lines.push('', 'Its current content:', '', fence(shown));
  }
  return lines.join('\n');
}

function signalsSection(): string {
  return [
    '## When you are done',
    '',
    'End your final answer with exactly one of these lines:',
    '',
    '- `<promise>COMPLETE</promise>` when every task of this story is implemented and ticked in tasks.md.',
    '- `<promise>FAILED: {reason}</promise>` when you cannot finish this story; give the reason in one or two',
    '  sentences so the next attempt can do better.',
    '- `<promise>BLOCKED: {question}</promise>` only for a decision a person must make: credentials you do not have,',
    '  a product choice the specs leave open, an irreversible action (deleting data, publishing, paying). The run',
    '  then waits for the answer. For small things do not block: make a reasonable choice and write it in the',
    '  learnings file.',
  ].join('\n');
}

/** A fenced block that cannot be closed early by backticks inside the text. */
function fence(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks}\n${text}\n${ticks}`;
}
