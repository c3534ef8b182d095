import type { Requirement, RequirementOperation } from '../core/change.js';
import { FenceTracker, parseHeading, stripBom, type Heading } from './markdown-lines.js';
import { parseStepLine, ScenarioBuilder } from './scenario-steps.js';

const DELTA_SECTIONS: ReadonlyMap<string, RequirementOperation> = new Map([
  ['added requirements', 'ADDED'],
  ['modified requirements', 'MODIFIED'],
  ['removed requirements', 'REMOVED'],
  ['renamed requirements', 'RENAMED'],
]);

/** `- TO: ### Requirement: New` in RENAMED, `- ### Requirement: Old` in REMOVED (OpenSpec's forms). */
const RENAMED_TO = /^[-*+]?[ \t]*TO:[ \t]*`?###[ \t]*Requirement:/;
const REMOVED_BULLET = /^[-*+][ \t]*`?###[ \t]*Requirement:/;

/** Lines indented this much or more belong to the step above them (sub-bullets, wrapped text). */
const CONTINUATION_INDENT = 2;

/**
 * Reads the requirements and scenarios of one `spec.md`. Pure. `### Requirement:`
 * headings, `#### Scenario:` headings, GIVEN/WHEN/THEN/AND steps with their
 * continuation lines, and the delta section (`## ADDED Requirements`, …) each
 * requirement sits under. Headings inside code fences are examples, not structure.
 */
export function parseSpec(content: string, capability: string): Requirement[] {
  const requirements: Requirement[] = [];
  const fences = new FenceTracker();
  let operation: RequirementOperation | null = null;
  let requirement: Requirement | null = null;
  let scenario: ScenarioBuilder | null = null;
  let afterBlank = false;

  for (const line of stripBom(content).split(/\r\n|\r|\n/)) {
    const fenced = fences.inFence(line);
    const heading = fenced ? null : parseHeading(line);
    if (heading !== null) {
      scenario?.closeStep();
      afterBlank = false;
      if (heading.level <= 2) operation = DELTA_SECTIONS.get(heading.text.toLowerCase()) ?? null;
      if (heading.level <= 3) {
        requirement = startRequirement(heading, capability, operation);
        if (requirement !== null) requirements.push(requirement);
        scenario = null;
      } else if (heading.level === 4) {
        scenario = requirement === null ? null : new ScenarioBuilder(scenarioName(heading.text));
        if (scenario !== null) requirement?.scenarios.push(scenario.scenario);
      }
      continue;
    }
    const trimmed = line.trim();
    if (!fenced && (operation === 'RENAMED' || operation === 'REMOVED')) {
      const named = listedRequirement(trimmed, operation, capability);
      if (named !== null) {
        requirements.push(named);
        requirement = null;
        scenario = null;
        continue;
      }
    }
    if (scenario === null) continue;
    if (trimmed === '') {
      afterBlank = true;
      continue;
    }
    const indented = indentOf(line) >= CONTINUATION_INDENT;
    const step = fenced || indented ? null : parseStepLine(trimmed);
    if (step !== null) {
      scenario.addStep(step);
    } else if (scenario.hasOpenStep() && (fenced || indented || !afterBlank)) {
      if (!FenceTracker.isFenceLine(line)) scenario.continueStep(trimmed);
    } else {
      scenario.closeStep();
    }
    afterBlank = false;
  }
  return requirements;
}

function startRequirement(
  heading: Heading,
  capability: string,
  operation: RequirementOperation | null,
): Requirement | null {
  if (heading.level !== 3) return null;
  const match = /^Requirement:/i.exec(heading.text);
  if (match === null) return null;
  const name = heading.text.slice(match[0].length).trim();
  return { capability, name, operation, scenarios: [] };
}

function scenarioName(text: string): string {
  return text.replace(/^Scenario:/i, '').trim();
}

function listedRequirement(
  line: string,
  operation: 'RENAMED' | 'REMOVED',
  capability: string,
): Requirement | null {
  const match = (operation === 'RENAMED' ? RENAMED_TO : REMOVED_BULLET).exec(line);
  if (match === null) return null;
  const name = line.slice(match[0].length).trim().replace(/`$/, '').trim();
  return name === '' ? null : { capability, name, operation, scenarios: [] };
}

function indentOf(line: string): number {
  let width = 0;
  for (const char of line) {
    if (char === ' ') width++;
    else if (char === '\t') width += 4 - (width % 4);
    else break;
  }
  return width;
}
