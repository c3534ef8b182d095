import type { Scenario } from '../core/change.js';

export type StepKind = 'given' | 'when' | 'then';

export interface StepLine {
  /** GIVEN/WHEN/THEN, or null for AND/BUT, which continue the previous step's kind. */
  kind: StepKind | null;
  text: string;
}

/**
 * `- **WHEN** x`, `- WHEN x`, `**GIVEN:** x`, `THEN x`, `- **AND** x`, `- Then x`.
 * The keyword must be followed by a space or the end, so `Whenever` is prose.
 */
const STEP = /^(?:[-*+][ \t]+)?(\*\*)?(given|when|then|and|but)(\*\*)?(:)?(\*\*)?(?:[ \t]+|$)/i;

/**
 * Reads one scenario step from a line whose indentation is already removed.
 * A bare keyword must be upper-case (`WHEN x`), because a sentence that merely
 * starts with "When" is prose; a bullet or bold marks the keyword on purpose.
 */
export function parseStepLine(line: string): StepLine | null {
  const match = STEP.exec(line);
  if (match === null) return null;
  const keyword = match[2] ?? '';
  const marked = line.startsWith('-') || line.startsWith('*') || line.startsWith('+');
  if (!marked && keyword !== keyword.toUpperCase()) return null;
  const lower = keyword.toLowerCase();
  const kind = lower === 'and' || lower === 'but' ? null : (lower as StepKind);
  return { kind, text: line.slice(match[0].length).trim() };
}

/** Collects the steps of one scenario; AND/BUT join the list of the step before them. */
export class ScenarioBuilder {
  readonly scenario: Scenario;
  private lastKind: StepKind = 'given';
  private open: { list: string[]; index: number } | null = null;

  constructor(name: string) {
    this.scenario = { name, given: [], when: [], then: [] };
  }

  addStep(step: StepLine): void {
    const kind = step.kind ?? this.lastKind;
    this.lastKind = kind;
    const list = this.scenario[kind];
    list.push(step.text);
    this.open = { list, index: list.length - 1 };
  }

  /** Appends a continuation line to the open step; false when no step is open. */
  continueStep(text: string): boolean {
    if (this.open === null) return false;
    const { list, index } = this.open;
    const current = list[index] ?? '';
    list[index] = current === '' ? text : `${current} ${text}`;
    return true;
  }

  hasOpenStep(): boolean {
    return this.open !== null;
  }

  closeStep(): void {
    this.open = null;
  }
}
