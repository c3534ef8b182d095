import type { Requirement } from './change.js';
import { MAX_REASON_LENGTH } from './signal.js';

// The independent review (docs/contract.md, "The review"): what the reviewer is given, and how
// its answer is read. Pure.

/** The reviewer's verdict on one scenario of the change's specs. */
export interface ScenarioVerdict {
  capability: string;
  requirement: string;
  scenario: string;
  /** null: the reviewer said nothing of this scenario. */
  met: boolean | null;
  /** The evidence (met) or why not (not met); empty when it said nothing. */
  note: string;
}

export type ReviewSignal = { kind: 'approved' } | { kind: 'rejected'; reasons: string };

export interface ReviewInput {
  change: string;
  proposal: string | null;
  design: string | null;
  requirements: readonly Requirement[];
  /** `git diff` from the original branch to the last checkpoint. */
  diff: string;
  /** The verify results of each accepted story, by story id. */
  verify: readonly {
    storyId: string;
    results: readonly {
      command: string;
      passed: boolean;
      tolerated?: boolean | undefined;
      flaky?: boolean | undefined;
    }[];
  }[];
  round: number;
  maxRounds: number;
}

/** Beyond this the diff is cut, and the reviewer told to read the rest with git. */
export const MAX_DIFF_CHARS = 200_000;

// Whitespace inside the tags is tolerated, as in every signal (core/signal.ts).
const VERDICT = /<\s*promise\s*>\s*(APPROVED|REJECTED)\s*(?::([\s\S]*?))?<\s*\/\s*promise\s*>/gi;

/**
 * The reviewer's final signal: the last `<promise>APPROVED</promise>` or
 * `<promise>REJECTED: {reasons}</promise>`; REJECTED without reasons still rejects; null when
 * there is none (the review then counts as rejected, for want of a verdict).
 */
export function parseReviewSignal(answer: string): ReviewSignal | null {
  let last: ReviewSignal | null = null;
  for (const match of answer.matchAll(VERDICT)) {
    const keyword = (match[1] ?? '').toUpperCase();
    if (keyword === 'APPROVED') {
      if (match[2] === undefined) last = { kind: 'approved' };
      continue;
    }
    const reasons = (match[2] ?? '').trim() || 'no reasons given';
    last = {
      kind: 'rejected',
      reasons:
        reasons.length > MAX_REASON_LENGTH ? `${reasons.slice(0, MAX_REASON_LENGTH)}…` : reasons,
    };
  }
  return last;
}

/** A verdict line: `- [MET] <requirement> / <scenario>: <evidence>` (or `[NOT MET]`). */
const VERDICT_LINE = /^\s*(?:[-*+]\s*)?\[\s*(MET|NOT\s+MET)\s*\]\s*(.+?)\s*\/\s*(.+?)\s*:\s*(.*)$/i;

/**
 * The reviewer's verdict per scenario, read from its answer's verdict lines; every scenario of
 * the change is listed, in the specs' order, those it said nothing of with `met: null`. The
 * last line about a scenario counts.
 */
export function scenarioVerdicts(
  answer: string,
  requirements: readonly Requirement[],
): ScenarioVerdict[] {
  const said = new Map<string, { met: boolean; note: string }>();
  for (const line of answer.split(/\r?\n/)) {
    const match = VERDICT_LINE.exec(line);
    if (match === null) continue;
    const met = !/^NOT/i.test(match[1] ?? '');
    said.set(key(match[2] ?? '', match[3] ?? ''), { met, note: (match[4] ?? '').trim() });
  }
  return requirements.flatMap((requirement) =>
    requirement.scenarios.map((scenario): ScenarioVerdict => {
      const verdict = said.get(key(requirement.name, scenario.name));
      return {
        capability: requirement.capability,
        requirement: requirement.name,
        scenario: scenario.name,
        met: verdict?.met ?? null,
        note: verdict?.note ?? '',
      };
    }),
  );
}

function key(requirement: string, scenario: string): string {
  const norm = (text: string): string =>
    text
      .replace(/[`*_]/g, '')
      .replace(/^(requirement|scenario):\s*/i, '')
      .replace(/\s+/g, ' ')
      .trim()
      .toLowerCase();
  return `${norm(requirement)}\0${norm(scenario)}`;
}

/** The reviewer's prompt: the change, every requirement and scenario, the diff, the verify results. */
export function buildReviewPrompt(input: ReviewInput): string {
  const sections: string[] = [
    [
      `# Independent review of the change \`${input.change}\``,
      '',
      `Review round ${input.round} of ${input.maxRounds}. Another agent implemented this change story by story;`,
      'every story was accepted by its checks. You are the independent reviewer: judge whether the work meets',
      "every scenario of the change's specs. Read the code as you need; do not edit any file (your edits would",
      'be reverted and reported).',
    ].join('\n'),
  ];
  if (input.proposal !== null) sections.push(`## Proposal\n\n${fence(input.proposal.trim())}`);
  if (input.design !== null) sections.push(`## Design\n\n${fence(input.design.trim())}`);
  sections.push(requirementsSection(input.requirements));
  const cut = input.diff.length > MAX_DIFF_CHARS;
  const diff = cut ? `${input.diff.slice(0, MAX_DIFF_CHARS)}\n…` : input.diff;
  sections.push(
    [
      '## The diff (from the original branch to the last checkpoint)',
      '',
      diff.trim() === '' ? '(no changes)' : fence(diff.trimEnd()),
      ...(cut
        ? ['', '(The diff is cut here: read the rest with `git diff` in the repository.)']
        : []),
    ].join('\n'),
  );
  sections.push(verifySection(input.verify));
  sections.push(
    [
      '## Your answer',
      '',
      'For every scenario above, one line:',
      '',
      '- `- [MET] <requirement> / <scenario>: <the evidence: file, test or behaviour>`',
      '- `- [NOT MET] <requirement> / <scenario>: <why not>`',
      '',
      'Then end your final answer with exactly one of these lines:',
      '',
      '- `<promise>APPROVED</promise>` when every scenario is met.',
      '- `<promise>REJECTED: {reasons}</promise>` otherwise; the reasons go to the agent that fixes them, so say',
      '  what is missing or wrong and where.',
    ].join('\n'),
  );
  return `${sections.join('\n\n')}\n`;
}

function requirementsSection(requirements: readonly Requirement[]): string {
  if (requirements.length === 0) {
    return '## Requirements and scenarios\n\n(The change has no specs: judge the work against its proposal and design.)';
  }
  const out = ['## Requirements and scenarios'];
  for (const r of requirements) {
    const op = r.operation ? ` (${r.operation})` : '';
    out.push('', `### ${r.capability}: Requirement: ${r.name}${op}`);
    for (const s of r.scenarios) {
      out.push(`- Scenario: ${s.name}`);
      for (const step of s.given) out.push(`  - GIVEN ${step}`);
      for (const step of s.when) out.push(`  - WHEN ${step}`);
      for (const step of s.then) out.push(`  - THEN ${step}`);
    }
  }
  return out.join('\n');
}

function verifySection(verify: ReviewInput['verify']): string {
  const lines = verify.flatMap(({ storyId, results }) =>
    results.map((v) => {
      const how = !v.passed
        ? v.tolerated === true
          ? 'failed (it failed before the run too)'
          : 'failed'
        : v.flaky === true
          ? 'passed on its rerun (flaky)'
          : 'passed';
      return `- story ${storyId}: \`${v.command}\` ${how}`;
    }),
  );
  return [
    '## Verify results',
    '',
    ...(lines.length > 0 ? lines : ['(no verify commands ran)']),
  ].join('\n');
}

/** A fenced block that cannot be closed early by backticks inside the text. */
function fence(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks}\n${text}\n${ticks}`;
}
