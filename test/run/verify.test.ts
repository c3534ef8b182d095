import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LoopHarness } from '../support/loop-harness.js';
import { ofType, quote, single, stories } from './helpers.js';

const CHANGE = 'verified-change';
const NODE = quote(process.execPath);

let fixture: LoopHarness | undefined;
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
});

describe('the loop with verify commands', () => {
  it('puts the verify failure into the next prompt and accepts once the check passes', async () => {
    fixture = new LoopHarness(CHANGE, stories(1));
    const f = fixture;
    const check = path.join(f.scratch, 'check.mjs');
    writeFileSync(
      check,
      [
        "import { existsSync, readFileSync } from 'node:fs';",
        "const ok = existsSync('src/marker.txt') && readFileSync('src/marker.txt', 'utf8') === 'ok\\n';",
        "if (!ok) { console.error('check: src/marker.txt must say ok'); process.exit(4); }",
        "console.log('check: fine');",
      ].join('\n'),
    );
    f.scenario({
      '1-1': [
        { write: 'src/marker.txt', content: 'not yet\n' },
        { tick: 'all' },
        { signal: 'COMPLETE' },
      ],
      '1-2': [
        { write: 'src/marker.txt', content: 'ok\n' },
        { tick: 'all' },
        { signal: 'COMPLETE' },
      ],
    });
    const verify = `${NODE} ${quote(check)}`;
    // The check fails before the run too: strict, so that it blocks from the first attempt.
    const result = await f.run({
      maxRetries: 1,
      verify: [verify],
      completion: 'keep',
      options: { verifyStrict: true },
    });
    expect(result.exitCode).toBe(0);
    const events = result.events();
    const failure = single(events, 'attempt.failed');
    expect(failure).toMatchObject({ attempt: 1, kind: 'verify-failed' });
    expect(failure.reason).toContain('code 4');
    expect(failure.reason).toContain('src/marker.txt must say ok');

    const retry = f.prompt('1', 2);
    expect(retry).toContain('## Previous Attempt Failed');
    expect(retry).toContain('src/marker.txt must say ok');
    expect(ofType(events, 'story.completed')).toHaveLength(1);
    expect(f.git('show', `ralph/${CHANGE}:src/marker.txt`)).toBe('ok\n');
    expect(f.git('show', `refs/ralphtool/${CHANGE}/attempts/1-1:src/marker.txt`)).toBe('not yet\n');
  });

  it('runs the verify commands with the environment the command was given', async () => {
    fixture = new LoopHarness(CHANGE, stories(1));
    const f = fixture;
    f.scenario({
      '1-1': [{ write: 'src/done.txt', content: 'x\n' }, { tick: 'all' }, { signal: 'COMPLETE' }],
    });
    expect(process.env.RALPHTOOL_VERIFY_MARK).toBeUndefined();
    const verify = `${NODE} -e "process.exit(process.env.RALPHTOOL_VERIFY_MARK === 'given' ? 0 : 7)"`;
    const result = await f.run({
      maxRetries: 0,
      verify: [verify],
      completion: 'keep',
      env: { ...process.env, RALPHTOOL_VERIFY_MARK: 'given' },
    });
    expect(ofType(result.events(), 'attempt.failed')).toEqual([]);
    expect(result.exitCode).toBe(0);
  });
});
