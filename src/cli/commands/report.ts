import { RuntimeError } from '../../core/errors.js';
import { buildReport, type ReportFile, type RunReport } from '../../core/run-report.js';
import { redactStrings } from '../../core/redact.js';
import { secretsHere, workTreeFolders } from '../../run/secrets.js';
import { notInRepo, readRunState, runPaths } from '../../checkpoint/index.js';
import { locateRepo } from '../../git/repo.js';
import { diffstat } from '../../git/diffstat.js';
import { readChange } from '../../openspec/changes.js';
import { findOpenSpecRoot } from '../../openspec/root.js';
import { DEFAULT_RUN_OPTIONS } from '../../run/options.js';
import type { CommandIO } from '../io.js';
import { renderReport, renderReportMarkdown } from '../render/report.js';
import { assertDirectory } from './cwd.js';

/**
 * `ralphtool report <change> [--markdown|--json]`: what the recorded run did, per story (a
 * pull request's body on CI).
 */
export async function reportCommand(
  io: CommandIO,
  opts: { cwd: string; change: string; markdown: boolean; json: boolean },
): Promise<number> {
  assertDirectory(opts.cwd);
  const timeoutMs = DEFAULT_RUN_OPTIONS.commandTimeoutMs;
  const repo = await locateRepo({ cwd: opts.cwd, timeoutMs, baseEnv: io.env });
  if (!repo) throw notInRepo(opts.cwd);
  const state = await readRunState(runPaths(repo.gitCommonDir, opts.change).state);
  if (state === null) {
    throw new RuntimeError(
      `no run of ${opts.change} is recorded here (\`ralphtool status\` lists the runs; \`ralphtool status --remote origin\` those on a remote)`,
    );
  }
  const titles = new Map<string, string>();
  const order: string[] = [];
  try {
    const change = await readChange(findOpenSpecRoot(opts.cwd), opts.change);
    for (const story of change.stories) {
      titles.set(story.id, story.title);
      order.push(story.id);
    }
  } catch {
    // The change's folder is not here (a cleanup moved on, another branch): ids only.
  }
  // A report is made to be shared (a pull request's body): what the agent wrote in its
  // reasons and questions goes through the one redactor first.
  const secrets = await secretsHere(io.env, workTreeFolders(opts.cwd)).catch(() => []);
  const files = await changedFiles(repo.root, state, io.env, timeoutMs);
  const report = redactStrings(buildReport(state, titles, order, files), secrets) as RunReport;
  if (opts.json) io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else if (opts.markdown) io.stdout.write(renderReportMarkdown(report));
  else io.stdout.write(renderReport(report, io.style));
  return 0;
}

/**
 * The files the run changed, from where it started to its last checkpoint (a diffstat); null
 * when there is no checkpoint yet or git cannot tell (its commits gone after a cleanup and a gc).
 */
async function changedFiles(
  cwd: string,
  state: { baseSha: string | null; checkpointSha: string | null },
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<ReportFile[] | null> {
  if (state.checkpointSha === null) return null;
  return diffstat({ cwd, timeoutMs, baseEnv: env }, state.baseSha, state.checkpointSha).catch(
    () => null,
  );
}
