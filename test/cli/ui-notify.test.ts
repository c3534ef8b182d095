import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createUiController } from '../../src/cli/ui-controller.js';
import { toRunOptions } from '../../src/cli/run-flags.js';
import type { TimedRunEvent } from '../../src/core/events.js';
import { FAKE_AGENT, quote, RunFixture, stories, succeed } from '../run/helpers.js';

const CHANGE = 'add-greeter';
const RECORDER = path.resolve('test/fixtures/notify/record.mjs');

let fixture: RunFixture | undefined;
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
});

/**
 * The UI's runs go through the same notifier as `run` (cli/ui-controller.ts): the loop and its
 * fake agent are real, only the screen is left out; the UI closing waits for the deliveries.
 */
describe('notifications of a run started from the UI', () => {
  it('tell run.finished to the program, and a failed delivery shows as a warning in the UI', async () => {
    fixture = new RunFixture(CHANGE, stories(1)).scenario({ '1-1': succeed('src/a.txt', 'a\n') });
    const f = fixture;
    const out = path.join(f.scratch, 'out.jsonl');
    const options = toRunOptions(
      {
        agentCommand: `${quote(process.execPath)} ${quote(FAKE_AGENT)}`,
        notify: [
          [process.execPath, RECORDER, out].map(quote).join(' '),
          'ralphtool-no-such-notify-program',
        ],
      },
      true,
    );
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const [key, value] of Object.entries(f.env())) {
      if (value === undefined) delete env[key];
      else env[key] = value;
    }
    const controller = createUiController(f.dir, options, env);
    const events: TimedRunEvent[] = [];
    const handle = controller.startRun(CHANGE, (event) => events.push(event));
    handle.choose('keep');
    expect(await handle.done).toEqual({ exitCode: 0 });
    await controller.notificationsDelivered();

    expect(existsSync(out)).toBe(true);
    const calls = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { env: Record<string, string> });
    expect(calls.map((c) => c.env.RALPHTOOL_EVENT)).toEqual(['run.finished']);
    expect(calls[0]?.env.RALPHTOOL_MESSAGE).toMatch(/^add-greeter is complete \(1\/1 stories/);
    expect(events.filter((e) => e.type === 'error')).toMatchObject([
      {
        type: 'error',
        fatal: false,
        message:
          'notification (run.finished) not delivered: --notify `ralphtool-no-such-notify-program` was not found',
      },
    ]);
  });
});
