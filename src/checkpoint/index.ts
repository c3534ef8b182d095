/** The checkpoint engine's public face, for the loop and the commands (docs/git-protocol.md). */
export { CheckpointRun } from './checkpoint.js';
export type { CallOptions, EnsureResult, RevertResult, RunLocation } from './types.js';
export { keptWorkAdvice, NO_FIGURES, openQuestion } from './records.js';
export type { AttemptEnding } from './records.js';
export type {
  AttemptFigures,
  FallbackRecord,
  LimitWaitRecord,
  OpenQuestion,
  StoryProgress,
} from './state.js';
export { GitError } from '../git/git-error.js';
export { git, gitOut } from '../git/git.js';
export type { GitContext, GitOptions } from '../git/git.js';
export { inspect } from './inspect.js';
export type { RunInspection } from './inspect.js';
export { openRun } from './open.js';
export type { HeadPosition, RepoLocation } from '../git/repo.js';
export { startRun } from './start.js';
export type { StartOptions } from './start.js';
export type { ForcedSave } from './forced-save.js';
export { forcedRefPrefix, saveBeforeForce } from './forced-save.js';
export type { GitOperation, StatusEntry } from '../git/status.js';
export { attemptRefTips, listAttemptRefs } from './attempt-refs.js';
export { snapshotHome } from './home-snapshot.js';
export { HomeCollision } from './home-cleanup.js';
export {
  attemptName,
  attemptRef,
  attemptRefPrefix,
  promptFile,
  ralphBranch,
  runPaths,
  runsRoot,
  transcriptFile,
} from './paths.js';
export type { RunPaths } from './paths.js';
export { progressRef, progressSubject } from './progress.js';
export { isKeptIncomplete } from './records.js';
export { recreateRunWorktree } from './recreate-worktree.js';
export { engineContext, notInRepo } from './run-git.js';
export { createRunWorktree, removeFreshWorktree, removeRunWorktree } from './run-worktree.js';
export { refuseRecordedRun } from './start.js';
export {
  parseRunState,
  readRunState,
  runStateExists,
  unreadableWayOut,
  writeRunState,
} from './state.js';
export type { IntentRecord, RunHome, RunState } from './state.js';
export { holderOf, isRunWorktree, listWorktrees, runWorktreeRoot } from './worktrees.js';
export { writeFileWhole } from './whole-file.js';
export {
  accountFile,
  accountsFolder,
  accountText,
  parseAccountEntry,
  readAccountEntry,
  updateAccountEntry,
  writeAccountEntry,
} from './account-file.js';
