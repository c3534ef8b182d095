/**
 * The exit code of several runs (docs/contract.md, "Exit codes"): 0 when every run's is 0, else
 * the most serious. A stop by the user comes first (as for one run, the set did not run to its
 * end and everything is resumable), then what needs a fix before anything else can go on (1
 * runtime failure, 2 refusal), then what one story, the review or the agent left (3 exhausted,
 * 6 not approved, 4 blocked, 5 limit). A code outside the contract counts as a runtime failure.
 */
const SERIOUSNESS: readonly number[] = [130, 1, 2, 3, 6, 4, 5];

export function mostSeriousExit(codes: readonly number[]): number {
  let worst = 0;
  for (const code of codes) {
    if (code === 0) continue;
    const known = SERIOUSNESS.includes(code) ? code : 1;
    if (worst === 0 || SERIOUSNESS.indexOf(known) < SERIOUSNESS.indexOf(worst)) worst = known;
  }
  return worst;
}
