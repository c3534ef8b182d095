import { rmSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { ALL_SUCCEED, FaultWorld } from './support/world.js';

// A state.json that cannot be read (a disk error, a hand edit gone wrong): ralphtool cannot
// tell where the run started, so every command refuses to guess, says where the work is and
// how to end the run by hand, and changes nothing; following that advice works.

const CHANGE = 'state-corrupt';

let world: FaultWorld | undefined;
afterEach(() => {
  world?.remove();
  world = undefined;
});

describe('a damaged state file', () => {
  it('every command says the same way out, changes nothing, and the way out works', async () => {
    world = new FaultWorld(CHANGE, 2).scenario({
      '1-*': ALL_SUCCEED['*'] ?? [],
      '2-*': [{ signal: 'FAILED: not today' }],
    });
    const w = world;
    // Story 2 is left undone, so a new `run` has work to do and must read the state.
    const first = await w.loop('run', ['--max-retries', '0']);
    expect(first.exitCode, first.stderr).toBe(3);
    writeFileSync(w.stateFile, '{ half a state');
    const head = w.sha('HEAD');
    const before = w.status();

    const status = await w.statusJson();
    expect(status.runs).toEqual([expect.objectContaining({ change: CHANGE, state: 'unreadable' })]);
    expect(String(status.runs[0]?.next)).toContain(`delete the folder ${w.runDir}`);

    for (const args of [
      ['resume', CHANGE, '--agent-command', 'true'],
      ['finish', CHANGE, '--keep'],
      ['finish', CHANGE, '--cleanup'],
      ['run', CHANGE, '--agent-command', 'true'],
    ]) {
      const refused = await w.cli(args);
      expect(refused.exitCode, args.join(' ')).toBe(1);
      const message = refused.stderr.trim();
      expect(message.split('\n')).toHaveLength(1);
      expect(message).toContain('is not valid JSON');
      expect(message).toContain(`its work is on branch ralph/${CHANGE}`);
      expect(message).toContain(`delete the folder ${w.runDir}`);
      expect(message).not.toContain('<change>');
    }
    expect(w.sha('HEAD')).toBe(head);
    expect(w.status()).toEqual(before);

    // The way out: forget the run and drop its branch; a new run starts from scratch.
    rmSync(w.runDir, { recursive: true });
    w.git('checkout', '-q', 'main');
    w.git('branch', '-D', `ralph/${CHANGE}`);
    w.scenario(ALL_SUCCEED);
    const again = await w.loop('run');
    expect(again.exitCode, again.stderr).toBe(0);
  });
});
