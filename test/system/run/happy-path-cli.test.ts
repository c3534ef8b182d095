import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  FAKE_AGENT,
  ofType,
  quote,
  RunFixture,
  single,
  stories,
  succeed,
} from '../../run/helpers.js';

const CHANGE = 'add-widgets';

let fixture: RunFixture | undefined;
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
});

describe('ralphtool run: the agent command', () => {
  it('runs an agent whose path has spaces and quotes, given as one --agent-command line', async () => {
    fixture = new RunFixture(CHANGE, stories(1)).scenario({ '1-1': succeed('src/x.txt', 'x\n') });
    const f = fixture;
    const dir = path.join(f.scratch, "agent's dir");
    mkdirSync(dir);
    const agent = path.join(dir, 'fake agent.mjs');
    // The fake agent itself, started through this path (a copy would lose its shared steps).
    writeFileSync(agent, `import ${JSON.stringify(pathToFileURL(FAKE_AGENT).href)};\n`);
    const commandLine = `${quote(process.execPath)} "${agent.replace(/(["\\$`])/g, '\\$1')}"`;
    const result = await f.run(['--json', '--agent', 'command', '--agent-command', commandLine], {
      agent: false,
    });
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    // NDJSON as written: every event carries its time.
    const events = result.events();
    for (const event of events) expect(new Date(String(event.ts)).toISOString()).toBe(event.ts);
    expect(single(events, 'run.finished')).toMatchObject({ outcome: 'complete' });
    expect(f.read('src/x.txt')).toBe('x\n');
  });
});

describe('ralphtool run: the environment the agent gets', () => {
  // ralphtool sets NODE_ENV=production for its own process (React's fast build for the UI); an
  // agent's `npm test` under it would test something else, so agents get what the user had.
  it.each([
    ['unset, as in a shell', undefined, '(unset)'],
    ['set by the user', 'development', 'development'],
  ])('NODE_ENV %s reaches the agent as it was', async (_, nodeEnv, seen) => {
    fixture = new RunFixture(CHANGE, stories(1));
    const f = fixture;
    const print = `console.log('NODE_ENV=' + (process.env.NODE_ENV ?? '(unset)'))`;
    const result = await f.run(
      [
        ...['--json', '--max-retries', '1', '--agent', 'command'],
        ...['--agent-command', `${quote(process.execPath)} -e "${print}"`],
      ],
      { agent: false, env: { NODE_ENV: nodeEnv } },
    );
    const said = ofType(result.events(), 'agent.message').map((e) => e.text);
    expect(said).toContain(`NODE_ENV=${seen}`);
  });
});

describe('ralphtool run --force', () => {
  it('resets a ralph/<change> branch that no run owns, then runs on it', async () => {
    fixture = new RunFixture(CHANGE, stories(1)).scenario({ '1-1': succeed('src/x.txt', 'x\n') });
    const f = fixture;
    // A branch of that name left behind, with a commit of its own and no recorded run.
    f.git('checkout', '-q', '-b', `ralph/${CHANGE}`);
    f.write('src/stale.txt', 'stale\n');
    f.git('add', '-A');
    f.git('commit', '-q', '-m', 'stale work');
    f.git('checkout', '-q', 'main');

    const result = await f.run(['--json', '--force', '--on-complete', 'keep']);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(f.currentBranch()).toBe(`ralph/${CHANGE}`);
    expect(f.subjects(`main..ralph/${CHANGE}`)).toEqual(['initial state', 'checkpoint: 1']);
    expect(f.git('ls-tree', '-r', '--name-only', `ralph/${CHANGE}`)).not.toContain('src/stale.txt');
    expect(f.read('src/x.txt')).toBe('x\n');
  });
});
