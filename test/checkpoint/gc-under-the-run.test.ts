import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkpointPinRef } from '../../src/checkpoint/checkpoint-pin.js';
import { openRun } from '../../src/checkpoint/open.js';
import { startRun } from '../../src/checkpoint/start.js';
import { NO_FIGURES } from '../../src/checkpoint/records.js';
import { makeRepo, runLocation } from '../git/helpers.js';
import type { TempRepo } from '../git/helpers.js';

const repos: TempRepo[] = [];
afterEach(() => {
  for (const made of repos.splice(0)) made.remove();
});

/** What a destructive agent does: the branch back to main, the reflog gone, objects pruned. */
function destroyHistory(r: TempRepo): void {
  r.git('reset', '-q', '--hard', 'main');
  r.git('reflog', 'expire', '--expire=now', '--all');
  r.git('gc', '-q', '--prune=now');
}

describe('an agent that resets the run branch, expires the reflog and prunes', () => {
  for (const ending of ['cleanup', 'keep'] as const) {
    it(`${ending}: the checkpoints and the user's work survive, the end works`, async () => {
      const r = makeRepo();
      repos.push(r);
      r.write('notes.txt', 'my uncommitted notes\n');
      const run = await startRun(runLocation(r.dir, 'fragile'));
      r.write('one.txt', 'story one\n');
      const first = await run.acceptStory('1', NO_FIGURES);
      r.write('two.txt', 'story two\n');
      const second = await run.acceptStory('2', NO_FIGURES);
      expect(r.git('rev-parse', checkpointPinRef('fragile'))).toBe(second);

      destroyHistory(r);
      expect(r.git('cat-file', '-t', first)).toBe('commit'); // kept by the pin

      const reopened = await openRun(runLocation(r.dir, 'fragile'));
      const repair = await reopened.ensureAtCheckpoint();
      expect(repair.repaired).toBe(true);
      expect(r.git('rev-parse', 'HEAD')).toBe(second);
      if (ending === 'cleanup') await reopened.cleanup({ outcome: 'complete' });
      else await reopened.keep({ outcome: 'complete' });
      expect(readFileSync(join(r.dir, 'notes.txt'), 'utf8')).toBe('my uncommitted notes\n');
      expect(readFileSync(join(r.dir, 'two.txt'), 'utf8')).toBe('story two\n');
      // The run has ended: the pin is gone with it.
      expect(r.gitStatus('rev-parse', '-q', '--verify', checkpointPinRef('fragile'))).not.toBe(0);
      if (ending === 'keep') {
        expect(r.git('log', '--format=%s', 'main..ralph/fragile').split('\n')).toEqual([
          'checkpoint: 2',
          'checkpoint: 1',
          'initial state',
        ]);
      }
    });
  }
});
