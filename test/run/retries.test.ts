import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { LoopHarness } from '../support/loop-harness.js';
import { loopTypes, ofType, single, stories, succeed } from './helpers.js';

const CHANGE = 'retry-things';
const REF = `refs/ralphtool/${CHANGE}/attempts`;
const FAILED_SECTION = '## Previous Attempt Failed';

let fixture: LoopHarness | undefined;
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
});

describe('the loop: failed attempts are reverted and retried', () => {
  it('puts a FAILED reason into the next prompt, but nothing after a no-signal retry', async () => {
    const reason = 'the database schema is missing a users table';
    fixture = new LoopHarness(CHANGE, stories(1)).scenario({
      '1-1': [
        { write: 'src/partial.txt', content: 'half done\n' },
        { write: 'src/app.txt', content: 'app broken\n' },
        { signal: `FAILED: ${reason}` },
      ],
      '1-2': [{ write: 'src/silent.txt', content: 'no signal\n' }, { say: 'I am done, I think' }],
      '1-3': succeed('src/final.txt', 'final\n'),
    });
    const f = fixture;
    const result = await f.run({ maxRetries: 3, completion: 'keep' });
    expect(result.exitCode).toBe(0);
    const events = result.events();

    expect(loopTypes(events)).toEqual([
      'run.started',
      'story.started',
      'attempt.failed',
      'checkpoint.reverted',
      'story.started',
      'attempt.failed',
      'checkpoint.reverted',
      'story.started',
      'checkpoint.created',
      'story.completed',
      'run.awaiting-choice',
      'run.finished',
    ]);
    const failures = ofType(events, 'attempt.failed');
    expect(failures[0]).toMatchObject({
      storyId: '1',
      attempt: 1,
      kind: 'failed-signal',
      reason,
    });
    expect(failures[1]).toMatchObject({ storyId: '1', attempt: 2, kind: 'no-signal' });
    expect(ofType(events, 'story.started').map((e) => e.attempt)).toEqual([1, 2, 3]);

    // The reason reaches attempt 2 only.
    expect(f.prompt('1', 1)).not.toContain(FAILED_SECTION);
    expect(f.prompt('1', 2)).toContain(FAILED_SECTION);
    expect(f.prompt('1', 2)).toContain(reason);
    expect(f.prompt('1', 2).indexOf(FAILED_SECTION)).toBeLessThan(
      f.prompt('1', 2).indexOf('## Your Task'),
    );
    expect(f.prompt('1', 3)).not.toContain(FAILED_SECTION);
    expect(f.prompt('1', 3)).not.toContain(reason);

    // Each revert names the checkpoint and the ref that saved the attempt.
    const base = single(events, 'run.started').baseSha;
    const reverts = ofType(events, 'checkpoint.reverted');
    expect(reverts).toEqual([
      expect.objectContaining({ storyId: '1', attempt: 1, toSha: base, savedRef: `${REF}/1-1` }),
      expect.objectContaining({ storyId: '1', attempt: 2, toSha: base, savedRef: `${REF}/1-2` }),
    ]);
    expect(f.attemptRefs()).toEqual([`${REF}/1-1`, `${REF}/1-2`]);
    expect(f.git('show', `${REF}/1-1:src/partial.txt`)).toBe('half done\n');
    expect(f.git('show', `${REF}/1-1:src/app.txt`)).toBe('app broken\n');
    expect(f.git('show', `${REF}/1-2:src/silent.txt`)).toBe('no signal\n');

    // Attempt 2 started from the checkpoint, and the final tree holds only accepted work.
    const tree = f.git('ls-tree', '-r', '--name-only', 'HEAD');
    expect(tree).toContain('src/final.txt');
    expect(tree).not.toContain('src/partial.txt');
    expect(tree).not.toContain('src/silent.txt');
    expect(f.read('src/app.txt')).toBe('app v1\n');
    expect(f.exists('src/partial.txt')).toBe(false);
    expect(single(events, 'story.completed')).toMatchObject({ storyId: '1', attempts: 3 });
  });

  it('fails COMPLETE with unchecked tasks as tasks-unchecked, listing them for the next prompt', async () => {
    fixture = new LoopHarness(CHANGE, stories(1, 3)).scenario({
      '1-1': [{ write: 'src/a.txt', content: 'a\n' }, { tick: ['1.1'] }, { signal: 'COMPLETE' }],
      '1-2': succeed('src/a.txt', 'a\n'),
    });
    const f = fixture;
    const result = await f.run({ maxRetries: 1, completion: 'keep' });
    expect(result.exitCode).toBe(0);

    const failure = single(result.events(), 'attempt.failed');
    expect(failure).toMatchObject({ storyId: '1', attempt: 1, kind: 'tasks-unchecked' });
    const reason = failure.reason;
    expect(reason).toContain('1.2 do thing 2 of story 1');
    expect(reason).toContain('1.3 do thing 3 of story 1');
    expect(reason).not.toContain('1.1 do thing 1');

    const retry = f.prompt('1', 2);
    expect(retry).toContain(FAILED_SECTION);
    expect(retry).toContain('1.2 do thing 2 of story 1');
    expect(retry).toContain('1.3 do thing 3 of story 1');
    // The tick of attempt 1 was reverted too: attempt 2 sees task 1.1 open again.
    expect(retry).toContain('- [ ] 1.1 do thing 1 of story 1');
    expect(f.git('show', `${REF}/1-1:openspec/changes/${CHANGE}/tasks.md`)).toContain('- [x] 1.1');
  });

  it('retries a crash (exit 1) and a SIGKILL without extra context', async () => {
    fixture = new LoopHarness(CHANGE, stories(1)).scenario({
      '1-1': [
        { write: 'src/crash.txt', content: 'crash\n' },
        { stderr: 'segmentation fault (pretend)' },
        { exit: 1 },
      ],
      '1-2': [{ write: 'src/killed.txt', content: 'killed\n' }, { kill: 'SIGKILL' }],
      '1-3': succeed('src/ok.txt', 'ok\n'),
    });
    const f = fixture;
    const result = await f.run({ maxRetries: 2, completion: 'keep' });
    expect(result.exitCode).toBe(0);

    const failures = ofType(result.events(), 'attempt.failed');
    expect(failures.map((e) => [e.attempt, e.kind])).toEqual([
      [1, 'crash'],
      [2, 'crash'],
    ]);
    expect(failures[0]?.reason).toContain('code 1');
    expect(failures[0]?.reason).toContain('segmentation fault (pretend)');
    expect(failures[1]?.reason).toContain('SIGKILL');
    expect(f.prompt('1', 2)).not.toContain(FAILED_SECTION);
    expect(f.prompt('1', 3)).not.toContain(FAILED_SECTION);
    expect(f.git('show', `${REF}/1-1:src/crash.txt`)).toBe('crash\n');
    expect(f.git('show', `${REF}/1-2:src/killed.txt`)).toBe('killed\n');
    expect(f.exists('src/crash.txt')).toBe(false);
    expect(f.exists('src/killed.txt')).toBe(false);
    expect(f.read('src/ok.txt')).toBe('ok\n');
  });

  it('keeps what an attempt wrote to the learnings file through its revert, for the next prompt', async () => {
    fixture = new LoopHarness(CHANGE, stories(2));
    const f = fixture;
    const learning = '- the build needs `make gen` before `make test`\n';
    f.scenario({
      '1-1': [
        { append: f.learningsPath, content: learning },
        { write: 'src/wip.txt', content: 'wip\n' },
        { signal: 'FAILED: generated code missing' },
      ],
      '1-2': succeed('src/one.txt', 'one\n'),
      '2-1': succeed('src/two.txt', 'two\n'),
    });
    const result = await f.run({ maxRetries: 1, completion: 'keep' });
    expect(result.exitCode).toBe(0);

    // The prompt names the file from the first attempt on; its content comes once there is some.
    expect(f.prompt('1', 1)).toContain(f.learningsPath);
    expect(f.prompt('1', 1)).not.toContain('make gen');
    expect(f.prompt('1', 2)).toContain(learning.trim());
    expect(f.prompt('2', 1)).toContain(learning.trim());
    expect(readFileSync(f.learningsPath, 'utf8')).toBe(learning);
    expect(f.exists('src/wip.txt')).toBe(false);
    // It lives outside the work tree: never committed.
    expect(f.git('ls-tree', '-r', '--name-only', 'HEAD')).not.toContain('learnings');
  });
});
