// What the sandbox refused an attempt's agent (docs/sandbox.md, "What the sandbox refused"): the
// sandbox runtime's violation lines, judged against the attempt's own policy and counted. Pure:
// the process layer (process/sandbox.ts) collects the lines, the loop records and reports them.

import type { SandboxPolicy } from './sandbox-policy.js';

/** One thing the sandbox refused, with how often: a connection (`host:port`) or a write (a path). */
export interface SandboxBlock {
  kind: 'network' | 'write';
  target: string;
  count: number;
}

/**
 * Never said: bubblewrap's own /dev and /proc, where it permits writes, and the kernel's /sys,
 * which runtimes probe as they start (Bun, OpenCode's, writes a trace marker there): noise.
 */
const PERMITTED_BY_BWRAP = ['/dev', '/proc', '/sys'];

/**
 * The refusals in the runtime's lines (`deny network-outbound example.com:443 (reason)`, `deny
 * openat /etc/x`), in order of first sight, each counted. The runtime's write monitor reports
 * every write outside the folders it was set up with, which are not the attempt's: a write the
 * attempt's policy allows (its work tree, its state, its temp folder), or into the empty stand-in
 * of a folder it may not read, is no refusal and is left out.
 */
export function sandboxBlocksOf(
  lines: readonly string[],
  policy: Pick<SandboxPolicy, 'allowWrite' | 'denyWrite' | 'denyRead'>,
  /**
   * Whether a folder is there (on the host): `mkdir -p` makes every folder of a path, and one
   * that exists is no refusal (it fails as it would outside the sandbox).
   */
  isFolder: (path: string) => boolean = () => false,
): SandboxBlock[] {
  const found: SandboxBlock[] = [];
  for (const line of lines) {
    const block = blockOf(line, policy, isFolder);
    if (block !== null) addBlock(found, block);
  }
  return found;
}

function blockOf(
  line: string,
  policy: Pick<SandboxPolicy, 'allowWrite' | 'denyWrite' | 'denyRead'>,
  isFolder: (path: string) => boolean,
): SandboxBlock | null {
  const network = /^deny network-outbound (\S+)/.exec(line);
  if (network?.[1] !== undefined) return { kind: 'network', target: network[1], count: 1 };
  const write = /^deny (\S+) (\/.*)$/.exec(line);
  const path = write?.[2];
  if (path === undefined) return null;
  if (write?.[1]?.startsWith('mkdir') === true && isFolder(path)) return null;
  if (PERMITTED_BY_BWRAP.some((dir) => under(path, dir))) return null;
  if (policy.denyRead.some((dir) => under(path, dir))) return null;
  const denied = policy.denyWrite.some((dir) => under(path, dir));
  if (!denied && policy.allowWrite.some((dir) => under(path, dir))) return null;
  return { kind: 'write', target: path, count: 1 };
}

/**
 * Whether the runtime's line is the attempt on `endMark` (core/sandbox-policy.ts `innerCommand`):
 * the end of a command's lines, never a refusal of its agent.
 */
export function isEndMark(line: string, endMark: string): boolean {
  return /^deny \S+ (\/.*)$/.exec(line)?.[1] === endMark;
}

function under(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith('/') ? dir : `${dir}/`);
}

/** `blocks` with `more` added: the same refusal counted once, with both counts. */
export function mergeBlocks(
  blocks: readonly SandboxBlock[],
  more: readonly SandboxBlock[],
): SandboxBlock[] {
  const merged = blocks.map((b) => ({ ...b }));
  for (const block of more) addBlock(merged, block);
  return merged;
}

function addBlock(into: SandboxBlock[], block: SandboxBlock): void {
  const same = into.find((b) => b.kind === block.kind && b.target === block.target);
  if (same === undefined) into.push({ ...block });
  else same.count += block.count;
}

/** How many refusals the words name at most; the rest are counted ("and 3 more"). */
const NAMED_AT_MOST = 8;

/** `the sandbox refused: a connection to example.com:443 (2×), a write to /etc/x`. */
export function sandboxBlockedText(blocks: readonly SandboxBlock[]): string {
  const named = blocks.slice(0, NAMED_AT_MOST).map((b) => {
    const what = b.kind === 'network' ? `a connection to ${b.target}` : `a write to ${b.target}`;
    return b.count > 1 ? `${what} (${String(b.count)}×)` : what;
  });
  const rest = blocks.length - named.length;
  return `the sandbox refused: ${named.join(', ')}${rest > 0 ? `, and ${String(rest)} more` : ''}`;
}
