// A change's footprint (docs/contract.md, "Several changes at once"): the paths it is expected to
// touch, estimated before its run starts, so that several runs do not work on the same files at
// the same time while others wait. An estimate: a path its texts name, or one its earlier
// attempts touched. Pure.

/** The paths a change is expected to touch: files (`src/auth.ts`), folders (`src/auth/`). */
export type Footprint = ReadonlySet<string>;

/** File endings a bare word must have to be taken for a path (`auth.ts`, `Makefile` is not). */
const FILE_ENDING =
  /\.(?:[cm]?[jt]sx?|json|ya?ml|toml|md|mdx|css|scss|html?|vue|svelte|py|rb|go|rs|java|kt|swift|c|cc|cpp|h|hpp|cs|php|sh|sql|proto|graphql|lock|ini|cfg|conf|env|txt|xml|gradle)$/i;

/** Names of products that read like file names in prose (`Node.js`), unless in backticks. */
const PRODUCT_NAME =
  /^(?:[A-Z][A-Za-z0-9]*\.js|(?:node|next|nuxt|vue|react|express|three|d3|chart|deno|bun)\.js)$/;

/**
 * The paths a text names: a word with a slash between path characters (`src/auth/login.ts`,
 * `lib/`), or a file name with a known ending (`package.json`); not a URL, not a change's own
 * OpenSpec folder (every change has one of its own), not `a/b` prose (`and/or`: no ending, no
 * trailing slash, not in backticks).
 */
export function pathsNamedIn(text: string): string[] {
  const found = new Set<string>();
  const quoted = new Set<string>();
  for (const match of text.matchAll(/`([^`\n]+)`/g)) quoted.add(match[1]!.trim());
  for (const match of text.matchAll(/[A-Za-z0-9_.@~/-]+/g)) {
    // A URL splits at its colon: `//host/path` starts with a slash and is no path here.
    const word = trimWord(match[0]);
    const path = normalisePath(word);
    if (path === null || path.startsWith('openspec/')) continue;
    const hasSlash = path.includes('/');
    if (!hasSlash && !quoted.has(word) && PRODUCT_NAME.test(path)) continue;
    const named =
      FILE_ENDING.test(path.replace(/\/$/, '')) ||
      path.endsWith('/') ||
      (hasSlash && quoted.has(word));
    if (named) found.add(path);
  }
  return [...found].sort();
}

/** A word as a path: no leading `./`, no trailing punctuation; null for no path at all. */
function normalisePath(word: string): string | null {
  let path = word.replace(/^(?:\.\/)+/, '');
  if (path.startsWith('/') || path.startsWith('~') || path.includes('..')) return null;
  path = path.replace(/\/{2,}/g, '/');
  if (!/[A-Za-z0-9]/.test(path)) return null;
  return path;
}

function trimWord(word: string): string {
  return word.replace(/[.,;:]+$/, '');
}

/** A footprint from what a change's texts name and the files its earlier attempts touched. */
export function footprintOf(texts: readonly string[], touched: readonly string[]): Footprint {
  const paths = new Set<string>(texts.flatMap(pathsNamedIn));
  for (const file of touched) if (!file.startsWith('openspec/')) paths.add(file);
  return paths;
}

/**
 * What two footprints share: a path both name, a folder one names and a path under it the other
 * names, or a bare file name the other has at any depth (`auth.ts` and `src/auth.ts`).
 */
export function footprintOverlap(a: Footprint, b: Footprint): string[] {
  const shared = new Set<string>();
  for (const one of a) {
    for (const other of b) {
      const meeting = meetingPath(one, other);
      if (meeting !== null) shared.add(meeting);
    }
  }
  return [...shared].sort();
}

function meetingPath(one: string, other: string): string | null {
  if (one === other) return one;
  if (one.endsWith('/') && other.startsWith(one)) return other;
  if (other.endsWith('/') && one.startsWith(other)) return one;
  if (!one.includes('/') && other.endsWith(`/${one}`)) return other;
  if (!other.includes('/') && one.endsWith(`/${other}`)) return one;
  return null;
}

/** What a change shares with a running one: that change and the paths. */
export interface Overlap {
  with: string;
  paths: string[];
}

/** The change to start next in a free place, and what it shares with a running one (if any). */
export interface NextChange {
  change: string;
  /** Null when it shares nothing with the running changes. */
  overlap: Overlap | null;
  /** Changes given before it that wait because they share paths with a running one. */
  passed: { change: string; overlap: Overlap }[];
}

/**
 * The first waiting change (in the order given) whose footprint shares nothing with a running
 * change's; when every waiting change shares something, the first one (a free place is not left
 * idle: the merge check at the end still finds what collides). Null when nothing waits.
 */
export function pickNextChange(
  waiting: readonly string[],
  running: readonly string[],
  footprints: ReadonlyMap<string, Footprint>,
): NextChange | null {
  if (waiting.length === 0) return null;
  const overlapOf = (change: string): Overlap | null => {
    const mine = footprints.get(change) ?? new Set<string>();
    for (const other of running) {
      const paths = footprintOverlap(mine, footprints.get(other) ?? new Set<string>());
      if (paths.length > 0) return { with: other, paths };
    }
    return null;
  };
  const passed: NextChange['passed'] = [];
  for (const change of waiting) {
    const overlap = overlapOf(change);
    if (overlap === null) return { change, overlap: null, passed };
    passed.push({ change, overlap });
  }
  const first = waiting[0]!;
  return { change: first, overlap: overlapOf(first), passed: [] };
}
