import { describe, expect, it } from 'vitest';
import {
  isEndMark,
  mergeBlocks,
  sandboxBlockedText,
  sandboxBlocksOf,
  type SandboxBlock,
} from '../../src/core/sandbox-blocks.js';

// The sandbox runtime's violation lines judged by the attempt's own policy: its write monitor
// was set up with none of the attempt's folders, so it reports the allowed writes too.

const POLICY = {
  allowWrite: [
    '/work/tree',
    '/work/tree/.git',
    '/home/u/.claude',
    '/tmp/ralphtool-sandbox-x/tmp-1',
  ],
  denyWrite: ['/work/tree/.git/hooks', '/work/tree/.git/config'],
  denyRead: ['/home/u/.ssh', '/home/u/.aws'],
};

describe('what the sandbox refused an attempt', () => {
  it('counts each refused connection and write, in order of first sight', () => {
    const lines = [
      'deny network-outbound example.com:443 (host is not on the allow list)',
      'deny openat /etc/x',
      'deny network-outbound example.com:443 (host is not on the allow list)',
      'deny network-outbound 127.0.0.1:9 (host is not on the allow list)',
      'deny mkdirat /home/u/elsewhere',
    ];
    expect(sandboxBlocksOf(lines, POLICY)).toEqual([
      { kind: 'network', target: 'example.com:443', count: 2 },
      { kind: 'write', target: '/etc/x', count: 1 },
      { kind: 'network', target: '127.0.0.1:9', count: 1 },
      { kind: 'write', target: '/home/u/elsewhere', count: 1 },
    ]);
  });

  it.each([
    ['the work tree', '/work/tree/src/a.ts'],
    ['the work tree itself', '/work/tree'],
    ["the agent's state", '/home/u/.claude/todos/1.json'],
    ['the private temp folder', '/tmp/ralphtool-sandbox-x/tmp-1/f'],
    ["bubblewrap's /dev", '/dev/null'],
    ["bubblewrap's /proc", '/proc/self/fd/1'],
    ["the kernel's /sys, which Bun probes", '/sys/kernel/debug/tracing/trace_marker'],
    ['the empty stand-in of a folder it may not read', '/home/u/.ssh/known_hosts'],
  ])('leaves out a write the policy allows: %s', (_what, path) => {
    expect(sandboxBlocksOf([`deny openat ${path}`], POLICY)).toEqual([]);
  });

  it.each([
    ["git's hooks inside the work tree", '/work/tree/.git/hooks/pre-commit'],
    ["git's config", '/work/tree/.git/config'],
    ['a sibling whose name starts like an allowed folder', '/work/tree-other/x'],
    ["another agent's state", '/home/u/.codex/auth.json'],
  ])('keeps a write the policy refuses: %s', (_what, path) => {
    expect(sandboxBlocksOf([`deny openat ${path}`], POLICY)).toEqual([
      { kind: 'write', target: path, count: 1 },
    ]);
  });

  it('leaves out making a folder that is there (mkdir -p), keeps making one that is not', () => {
    const lines = ['deny mkdirat /tmp', 'deny mkdirat /tmp/new', 'deny openat /tmp'];
    expect(sandboxBlocksOf(lines, POLICY, (p) => p === '/tmp')).toEqual([
      { kind: 'write', target: '/tmp/new', count: 1 },
      { kind: 'write', target: '/tmp', count: 1 },
    ]);
  });

  it('ignores lines it does not know', () => {
    expect(sandboxBlocksOf(['something else', 'deny openat relative/path', ''], POLICY)).toEqual(
      [],
    );
  });

  it('merges the refusals of two attempts, counting the same one once with both counts', () => {
    const first: SandboxBlock[] = [{ kind: 'network', target: 'a:443', count: 2 }];
    const second: SandboxBlock[] = [
      { kind: 'write', target: 'a:443', count: 1 },
      { kind: 'network', target: 'a:443', count: 3 },
    ];
    expect(mergeBlocks(first, second)).toEqual([
      { kind: 'network', target: 'a:443', count: 5 },
      { kind: 'write', target: 'a:443', count: 1 },
    ]);
    expect(first).toEqual([{ kind: 'network', target: 'a:443', count: 2 }]);
  });

  it('says them in one line, counting what it does not name', () => {
    expect(
      sandboxBlockedText([
        { kind: 'network', target: 'example.com:443', count: 2 },
        { kind: 'write', target: '/etc/x', count: 1 },
      ]),
    ).toBe('the sandbox refused: a connection to example.com:443 (2×), a write to /etc/x');
    const many = Array.from({ length: 11 }, (_, i): SandboxBlock => ({
      kind: 'write',
      target: `/etc/${String(i)}`,
      count: 1,
    }));
    const text = sandboxBlockedText(many);
    expect(text).toContain('a write to /etc/7, and 3 more');
    expect(text).not.toContain('/etc/8');
  });
});

describe("a command's end mark", () => {
  const MARK = '/tmp/ralphtool-sandbox-x/cwd/.end-0123456789abcdef';
  it.each([
    [`deny openat ${MARK}`, true],
    [`deny creat ${MARK}`, true],
    [`deny open ${MARK}`, true],
    [`deny openat ${MARK}x`, false],
    [`deny openat ${MARK}/x`, false],
    [`deny openat /tmp/ralphtool-sandbox-x/cwd/.end-other`, false],
    [`deny network-outbound ${MARK}:443 (x)`, false],
    [`allow openat ${MARK}`, false],
    ['', false],
  ])('%j is the mark: %s', (line, mark) => {
    expect(isEndMark(line, MARK)).toBe(mark);
  });
});
