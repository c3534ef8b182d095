import type { Story } from './change.js';
import type { AttemptFailure, VerifyResult } from './events.js';

/** What a checkpoint commit's body tells a reviewer of its story (docs/contract.md, "Accept a story"). */
export interface CheckpointBodyInput {
  change: string;
  story: Pick<Story, 'id' | 'title' | 'tasks'>;
  /** The accepted attempt's number. */
  attempt: number;
  /** The story's counted failures before it, in order. */
  failures: readonly ({ attempt: number } & AttemptFailure)[];
  verify: readonly VerifyResult[];
  /** Verify runs of its attempts that failed, then passed when run again. */
  flakes: number;
  /** What the accepted attempt changed in the tests, let through, with what allowed it. */
  testChanges: readonly string[];
}

/** A reason in a commit body is one line: the next prompt got the whole of it. */
const MAX_REASON = 200;

/**
 * The body under `checkpoint: <story id>`: the story's title, its tasks, its attempts with each
 * failure's reason, the verify results, the tests changed, then the trailers naming the change
 * and the story (`git interpret-trailers --parse` reads them: they are the last paragraph).
 */
export function checkpointBody(input: CheckpointBodyInput): string {
  const { story } = input;
  const paragraphs: string[][] = [[oneLine(story.title)]];
  if (story.tasks.length > 0) {
    paragraphs.push(
      story.tasks.map((t) => `- [${t.done ? 'x' : ' '}] ${oneLine(`${t.id} ${t.description}`)}`),
    );
  }
  paragraphs.push([
    `Attempts: ${input.attempt} (accepted on attempt ${input.attempt})`,
    ...input.failures.map(
      (f) => `- attempt ${f.attempt} failed (${f.kind}): ${clip(oneLine(f.reason))}`,
    ),
  ]);
  if (input.verify.length > 0 || input.flakes > 0) {
    paragraphs.push([
      'Verify:',
      ...input.verify.map((v) => `- ${verifyWord(v)}: ${oneLine(v.command)}`),
      ...(input.flakes > 0
        ? [`- flaky runs (failed, then passed when run again): ${input.flakes}`]
        : []),
    ]);
  }
  if (input.testChanges.length > 0) {
    paragraphs.push(['Tests changed:', ...input.testChanges.map((c) => `- ${oneLine(c)}`)]);
  }
  paragraphs.push([
    `Ralphtool-Change: ${oneLine(input.change)}`,
    `Ralphtool-Story: ${oneLine(story.id)}`,
  ]);
  return paragraphs.map((lines) => lines.join('\n')).join('\n\n');
}

function verifyWord(v: VerifyResult): string {
  if (!v.passed) return v.tolerated === true ? 'failed (failed before the run too)' : 'failed';
  return v.flaky === true ? 'passed on its rerun (flaky)' : 'passed';
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function clip(text: string): string {
  return text.length > MAX_REASON ? `${text.slice(0, MAX_REASON - 1)}…` : text;
}
