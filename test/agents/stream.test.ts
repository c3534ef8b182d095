import { expectGone } from '../support/processes.js';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ByteTail, LineSplitter, streamProcess } from '../../src/process/stream.js';
import type { StreamOptions } from '../../src/process/stream.js';

const node = process.execPath;

interface Line {
  line: string;
  truncated: boolean;
}

function split(chunks: readonly Buffer[], maxLineBytes = 1024): Line[] {
  const lines: Line[] = [];
  const splitter = new LineSplitter(maxLineBytes, (line, truncated) =>
    lines.push({ line, truncated }),
  );
  for (const chunk of chunks) splitter.push(chunk);
  splitter.end();
  return lines;
}

/** Runs a node script and collects its stdout lines. */
async function run(script: string, options: Partial<StreamOptions> = {}) {
  const lines: Line[] = [];
  const result = await streamProcess(node, ['-e', script], {
    cwd: process.cwd(),
    env: process.env,
    graceMs: 300,
    onLine: (line, truncated) => lines.push({ line, truncated }),
    ...options,
  });
  return { result, lines, texts: lines.map((l) => l.line) };
}

/** Spawns a grandchild in the same process group, prints its pid, then hangs. */
const HANG_WITH_GRANDCHILD = `
  const { spawn } = require('node:child_process');
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  console.log(child.pid);
  setInterval(() => {}, 1000);
`;

describe('LineSplitter', () => {
  it('joins lines across chunk boundaries, multi-byte characters and CRLF included', () => {
    const bytes = Buffer.from('héllo wörld\r\nsecond 🎉 line\nlast without newline');
    const expected = ['héllo wörld', 'second 🎉 line', 'last without newline'];
    for (let cut = 0; cut <= bytes.length; cut += 1) {
      const lines = split([bytes.subarray(0, cut), bytes.subarray(cut)]);
      expect(lines.map((l) => l.line)).toEqual(expected);
    }
  });

  it('gives the same lines however the stream is cut', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ unit: 'grapheme' }).map((s) => s.replace(/[\r\n]/g, '')),
          {
            maxLength: 8,
          },
        ),
        fc.array(fc.nat(), { maxLength: 10 }),
        (lines, cuts) => {
          const bytes = Buffer.from(lines.map((l) => `${l}\n`).join(''));
          const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort(
            (a, b) => a - b,
          );
          const chunks = [0, ...points].map((from, i) =>
            bytes.subarray(from, points[i] ?? bytes.length),
          );
          expect(split(chunks).map((l) => l.line)).toEqual(lines);
        },
      ),
    );
  });

  it('cuts a line longer than the limit and skips the rest of it', () => {
    const lines = split(
      [Buffer.from('a'.repeat(30)), Buffer.from('b'.repeat(30)), Buffer.from('c\nnext\n')],
      40,
    );
    expect(lines).toEqual([
      { line: 'a'.repeat(30) + 'b'.repeat(10), truncated: true },
      { line: 'next', truncated: false },
    ]);
    expect(split([Buffer.from(`${'x'.repeat(40)}\n`)], 40)).toEqual([
      { line: 'x'.repeat(40), truncated: false },
    ]);
  });

  it('replaces invalid UTF-8 and keeps NUL bytes without breaking lines', () => {
    const lines = split([Buffer.from([0x66, 0xff, 0xc3, 0x6f, 0x00, 0x6f, 0x0a, 0x6b, 0x0a])]);
    expect(lines.map((l) => l.line)).toEqual(['f\uFFFD\uFFFDo\u0000o', 'k']);
  });
});

describe('ByteTail', () => {
  it('keeps only the last bytes', () => {
    const tail = new ByteTail(10);
    for (let i = 0; i < 100; i += 1) tail.push(Buffer.from(`${i},`));
    expect(tail.text()).toBe('96,97,98,99,'.slice(-10));
  });
});

describe('streamProcess', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ralphtool-stream-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the prompt to stdin, without a shell, and delivers stdout lines', async () => {
    const { result, texts } = await run(
      `let s = ''; process.stdin.on('data', (d) => (s += d)).on('end', () => {
         process.stdout.write('got:' + s + '\\nsecond');
       });`,
      { input: 'a prompt; $(touch /tmp/pwned)' },
    );
    expect(texts).toEqual(['got:a prompt; $(touch /tmp/pwned)', 'second']);
    expect(result).toMatchObject({ exitCode: 0, signal: null, timedOut: null, aborted: false });
  });

  it('keeps a 200 MB line without a newline bounded', async () => {
    const before = process.memoryUsage().rss;
    let peak = before;
    const lines: Line[] = [];
    const { result } = await run(
      `const chunk = Buffer.alloc(1024 * 1024, 0x78);
       let left = 200;
       const pump = () => {
         while (left > 0) { left -= 1; if (!process.stdout.write(chunk)) return process.stdout.once('drain', pump); }
         process.stdout.write('\\nafter\\n');
       };
       pump();`,
      {
        onLine: (line, truncated) => {
          lines.push({ line, truncated });
          peak = Math.max(peak, process.memoryUsage().rss);
        },
      },
    );
    expect(result.exitCode).toBe(0);
    expect(lines).toHaveLength(2);
    expect(lines[0]?.truncated).toBe(true);
    expect(lines[0]?.line.length).toBe(1024 * 1024);
    expect(lines[1]).toEqual({ line: 'after', truncated: false });
    peak = Math.max(peak, process.memoryUsage().rss);
    expect(peak - before).toBeLessThan(150 * 1024 * 1024);
  });

  it('keeps the end of stderr and tees stdout and stderr to the transcript', async () => {
    const transcriptPath = join(dir, 'transcript.ndjson');
    const { result, texts } = await run(
      `process.stderr.write('START' + 'e'.repeat(200 * 1024) + 'THE END\\n');
       process.stdout.write('{"type":"x"}\\n');
       process.exitCode = 3;`,
      { transcriptPath, stderrTailBytes: 64 * 1024 },
    );
    expect(result.exitCode).toBe(3);
    expect(texts).toEqual(['{"type":"x"}']);
    expect(result.stderrTail.length).toBeLessThanOrEqual(64 * 1024);
    expect(result.stderrTail.endsWith('THE END\n')).toBe(true);
    expect(result.stderrTail).not.toContain('START');
    const transcript = readFileSync(transcriptPath, 'utf8');
    expect(transcript).toContain('START');
    expect(transcript).toContain('THE END');
    expect(transcript).toContain('{"type":"x"}\n');
  });

  it('kills the whole process group at the wall-clock limit', async () => {
    const { result, texts } = await run(HANG_WITH_GRANDCHILD, { wallTimeoutMs: 2000 });
    expect(result.timedOut).toBe('wall');
    expect(result.signal).toBe('SIGTERM');
    await expectGone(Number(texts[0]));
  });

  it('kills the whole process group after the idle limit', async () => {
    const { result, texts } = await run(HANG_WITH_GRANDCHILD, { idleTimeoutMs: 2000 });
    expect(result.timedOut).toBe('idle');
    await expectGone(Number(texts[0]));
  });

  it('sends SIGKILL after the grace period to a child that ignores SIGTERM', async () => {
    const { result } = await run(
      `process.on('SIGTERM', () => {}); console.log('ready'); setInterval(() => {}, 1000);`,
      { idleTimeoutMs: 2000 },
    );
    expect(result.timedOut).toBe('idle');
    expect(result.signal).toBe('SIGKILL');
  });

  it('stops the process group when aborted', async () => {
    const controller = new AbortController();
    let grandchild = 0;
    const result = await streamProcess(node, ['-e', HANG_WITH_GRANDCHILD], {
      cwd: process.cwd(),
      env: process.env,
      graceMs: 300,
      signal: controller.signal,
      onLine: (line) => {
        grandchild = Number(line);
        controller.abort();
      },
    });
    expect(result).toMatchObject({ aborted: true, timedOut: null, signal: 'SIGTERM' });
    await expectGone(grandchild);
  });

  it('does not start at all when already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const { result, lines } = await run('console.log("ran")', { signal: controller.signal });
    expect(result.aborted).toBe(true);
    expect(lines).toEqual([]);
  });

  it('stops what the program left running when it exits', async () => {
    const { result, texts } = await run(`
      const { spawn } = require('node:child_process');
      const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'inherit' });
      console.log(child.pid);
      process.exit(0);
    `);
    expect(result).toMatchObject({ exitCode: 0, timedOut: null });
    await expectGone(Number(texts[0]));
  });

  it('reports a missing program', async () => {
    const result = await streamProcess('ralphtool-no-such-agent', [], {
      cwd: process.cwd(),
      env: process.env,
      onLine: () => undefined,
      input: 'prompt',
    });
    expect(result.notFound).toBe(true);
    expect(result.spawnError).toMatch(/ENOENT/);
  });
});
