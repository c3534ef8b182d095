// What the soak agent may do in one attempt, how often, and how ralphtool must judge it.
// Shared by the agent (which draws a behaviour) and the checker (which holds ralphtool to
// the verdict), so the two cannot drift apart.

/**
 * Behaviours with their weights (they add up to 100). The accepted ones only ever add the
 * story's own file and tick the story's tasks, so every checkpoint stays exactly checkable;
 * everything destructive ends in a failed attempt that ralphtool must revert.
 * @type {ReadonlyArray<readonly [string, number]>}
 */
export const BEHAVIOURS = [
  ['complete', 46], // story file, ticks, COMPLETE
  ['commit-complete', 12], // the same, committed by the agent itself, then COMPLETE
  ['fail', 8], // junk files, a user file changed, one tick, FAILED
  ['untick', 6], // story file, COMPLETE without ticking every task
  ['crash-exit', 4], // a file, then exit 1 without a signal
  ['crash-kill', 4], // a file, then SIGKILL itself
  ['hang', 3], // a file (and sometimes a child process), then sleeps past --agent-timeout
  ['commit-fail', 6], // work committed by the agent, then FAILED or exit 1
  ['delete-fail', 4], // deletes user / story / change files, then FAILED
  ['delete-silent', 4], // deletes them, then exits 0 without a signal
  ['rewrite-fail', 3], // rewinds or amends the run's branch, then FAILED
];

/**
 * Opt-in (SOAK_HOSTILE=1, `bench/soak.mjs --hostile`): the agent commits the user's ignored
 * files (`git add -f`, or after deleting .gitignore), then FAILED. The revert must leave
 * .env and node_modules where they were.
 * @type {ReadonlyArray<readonly [string, number]>}
 */
export const HOSTILE_BEHAVIOURS = [...BEHAVIOURS, ['commit-ignored', 4]];

/** Behaviours whose attempt ralphtool must accept. */
export const ACCEPTING = new Set(['complete', 'commit-complete']);

/**
 * The failure kind each failing behaviour must get. `commit-fail` may end in either way.
 * Any attempt may also end in `timeout` when the machine is too slow for --agent-timeout.
 * @type {Readonly<Record<string, readonly string[]>>}
 */
export const EXPECTED_KINDS = {
  fail: ['failed-signal'],
  untick: ['tasks-unchecked'],
  'crash-exit': ['crash'],
  'crash-kill': ['crash'],
  hang: ['timeout'],
  'commit-fail': ['failed-signal', 'crash'],
  'delete-fail': ['failed-signal'],
  'delete-silent': ['no-signal'],
  'rewrite-fail': ['failed-signal'],
  'commit-ignored': ['failed-signal'],
};

/** A small deterministic PRNG (mulberry32): the same seed always gives the same numbers. */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a of a string, to turn "seed/story/attempt" into a PRNG seed. */
function fnv1a(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** The random stream of one attempt of one story in one soak run. */
export function attemptRandom(seed, storyId, attempt) {
  return mulberry32(fnv1a(`${seed}/${storyId}/${attempt}`));
}

/** Draws a behaviour from the weights (of the hostile set when asked). */
export function pickBehaviour(random, hostile = false) {
  const table = hostile ? HOSTILE_BEHAVIOURS : BEHAVIOURS;
  let roll = random() * table.reduce((sum, [, weight]) => sum + weight, 0);
  for (const [name, weight] of table) {
    roll -= weight;
    if (roll < 0) return name;
  }
  return table[0][0];
}

/** The file an accepted attempt adds, and its exact content. */
export function storyFile(storyId) {
  return `stories/${storyId}.txt`;
}

export function storyFileContent(storyId, attempt) {
  return `story ${storyId} accepted at attempt ${attempt}\n`;
}

/** What a failing attempt writes first, so its saved ref can be checked for it. */
export function markerFile(storyId, attempt) {
  return `scratch/${storyId}-${attempt}.txt`;
}

export function markerContent(storyId, attempt, behaviour) {
  return `attempt ${storyId}-${attempt}: ${behaviour}\n`;
}

/** Escapes a story id for a regular expression. */
function escapeId(id) {
  return id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function storyTaskLine(storyId) {
  return new RegExp(`^(\\s*[-*+] )\\[ \\]( ${escapeId(storyId)}\\.\\d+\\s)`, 'gm');
}

/** How many unticked tasks the story has in tasks.md. */
export function countStoryTasks(text, storyId) {
  return [...text.matchAll(storyTaskLine(storyId))].length;
}

/** tasks.md with the given story's tasks (`- [ ] <id>.<n>`) ticked; `limit` ticks only the first ones. */
export function tickStory(text, storyId, limit = Infinity) {
  let ticked = 0;
  return text.replace(storyTaskLine(storyId), (whole, head, tail) => {
    if (ticked >= limit) return whole;
    ticked++;
    return `${head}[x]${tail}`;
  });
}
