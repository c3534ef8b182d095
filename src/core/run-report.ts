// `ralphtool report`: what a run did, per story, in a form a pull request can show. Pure: built
// from the run state's figures, the change's story titles and the files the run changed.

import type { AttemptFailure, VerifyResult } from './events.js';
import type { SandboxBlock } from './sandbox-blocks.js';

/** One counted failure of a story's attempts. */
export type ReportFailure = { attempt: number } & AttemptFailure;

/** One file the run changed: lines added and removed (null for a binary file). */
export interface ReportFile {
  path: string;
  added: number | null;
  removed: number | null;
}

/** One story's row. */
export interface ReportStory {
  id: string;
  title: string;
  done: boolean;
  attempts: number;
  /** Null when the agent reports no cost (Codex, most commands): shown as "—", never $0.00. */
  costUsd: number | null;
  durationMs: number;
  /** Verify runs that failed, then passed when run again (flakes), across its attempts. */
  flakes: number;
  /** What its accepted attempt changed in the tests, let through, with what allowed it. */
  testChanges: string[];
  /** Each counted failure of its attempts, with its reason, in order. */
  failures: ReportFailure[];
  /** `--sandbox`: what the sandbox refused its attempts' agents, each counted; [] for nothing. */
  sandboxBlocks: SandboxBlock[];
  /** The verify results of its accepted attempt (none when none ran or it is not done). */
  verify: VerifyResult[];
}

export interface RunReport {
  change: string;
  branch: string;
  status: 'active' | 'finished';
  outcome: string | null;
  choice: string | null;
  stories: ReportStory[];
  costUsd: number | null;
  durationMs: number;
  /** The remote the run pushes to, if any. */
  remote: string | null;
  /** The files the run changed from where it started to its last checkpoint; null when unknown. */
  files: ReportFile[] | null;
  /** The last independent review's verdict; null when the run had none. */
  review: ReportReview | null;
  /** `--sandbox` (docs/sandbox.md): what its policy adds to the defaults; null: not sandboxed. */
  sandbox: { allowHosts: string[]; denyRead: string[] } | null;
}

/** The one line a report says of a sandboxed run. */
export function sandboxLine(sandbox: NonNullable<RunReport['sandbox']>): string {
  const hosts = sandbox.allowHosts.length > 0 ? sandbox.allowHosts.join(', ') : 'nothing else';
  return `Sandboxed (--sandbox): the agent wrote only in the work tree, read no credential store, and reached only its API and ${hosts}`;
}

/** The last review (`--review`): its verdict, its reasons, and each scenario met or not. */
export interface ReportReview {
  round: number;
  verdict: 'approved' | 'rejected';
  reasons: string | null;
  scenarios: {
    capability: string;
    requirement: string;
    scenario: string;
    met: boolean | null;
    note: string;
  }[];
}

/** The state's figures as a report; `titles` from the change (an id without one shows the id). */
export function buildReport(
  state: {
    change: string;
    branch: string;
    status: 'active' | 'finished';
    outcome: string | null;
    choice: string | null;
    costUsd: number;
    stories: Record<
      string,
      {
        attempts: number;
        completed: boolean;
        costUsd: number;
        durationMs: number;
        flakes?: number | undefined;
        testChanges?: string[] | undefined;
        failures?: ReportFailure[] | undefined;
        verify?: RecordedVerify[] | undefined;
        sandboxBlocks?: SandboxBlock[] | undefined;
      }
    >;
    remote?: { push: string } | null | undefined;
    review?: ReportReview | undefined;
    intent?:
      | { sandbox: boolean; allowHosts: readonly string[]; sandboxDenyRead: readonly string[] }
      | undefined;
  },
  titles: ReadonlyMap<string, string>,
  order: readonly string[],
  files: ReportFile[] | null = null,
): RunReport {
  const ids = [...order.filter((id) => id in state.stories || titles.has(id))];
  for (const id of Object.keys(state.stories)) if (!ids.includes(id)) ids.push(id);
  const stories = ids.map((id): ReportStory => {
    const p = state.stories[id];
    return {
      id,
      title: titles.get(id) ?? id,
      done: p?.completed ?? false,
      attempts: p?.attempts ?? 0,
      costUsd: p === undefined || p.costUsd === 0 ? null : p.costUsd,
      durationMs: p?.durationMs ?? 0,
      flakes: p?.flakes ?? 0,
      testChanges: [...(p?.testChanges ?? [])],
      failures: (p?.failures ?? []).map((f) => ({ ...f })),
      sandboxBlocks: (p?.sandboxBlocks ?? []).map((b) => ({ ...b })),
      verify: (p?.verify ?? []).map(verifyResult),
    };
  });
  return {
    change: state.change,
    branch: state.branch,
    status: state.status,
    outcome: state.outcome,
    choice: state.choice,
    stories,
    costUsd: state.costUsd === 0 ? null : state.costUsd,
    durationMs: stories.reduce((sum, s) => sum + s.durationMs, 0),
    remote: state.remote?.push ?? null,
    files,
    review: state.review ?? null,
    sandbox: state.intent?.sandbox
      ? { allowHosts: [...state.intent.allowHosts], denyRead: [...state.intent.sandboxDenyRead] }
      : null,
  };
}

/** A verify result as the record keeps it (its optional parts possibly undefined). */
interface RecordedVerify {
  command: string;
  passed: boolean;
  tolerated?: boolean | undefined;
  flaky?: boolean | undefined;
}

function verifyResult(v: RecordedVerify): VerifyResult {
  return {
    command: v.command,
    passed: v.passed,
    ...(v.tolerated === true ? { tolerated: true } : {}),
    ...(v.flaky === true ? { flaky: true } : {}),
  };
}

/** A Markdown table cell: one line, pipes escaped, no HTML. */
export function markdownCell(text: string): string {
  return text
    .replace(/\r?\n|\r/g, ' ')
    .replace(/\\/g, '\\\\')
    .replace(/\|/g, '\\|')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .trim();
}
