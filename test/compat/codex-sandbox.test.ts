// `ralphtool run --agent codex --sandbox`: the REAL Codex binary inside the sandbox, talking to
// the scripted Responses API on loopback through the sandbox's proxy (docs/sandbox.md). It writes
// its state in CODEX_HOME, completes the story, and a write outside the work tree is refused.
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { codexEnv } from '../support/responses-server-codex.js';
import { undoAfterEach } from '../support/e2e-cleanups.js';
import { sandboxToolsAvailable } from '../support/sandbox-tools.js';
import { complete, serveByAttempt, tick } from './codex-conversations.js';

const CHANGE = 'add-greeter';
const TASKS = `openspec/changes/${CHANGE}/tasks.md`;
const { later, repoWith } = undoAfterEach(CHANGE);

describe.skipIf(!sandboxToolsAvailable())('ralphtool run --agent codex --sandbox', () => {
  it('completes a story through the scripted API; a write outside the work tree is refused and said', async () => {
    const repo = repoWith([{ title: 'Greeter', tasks: ['Create the greeter'] }]);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ralphtool-sandbox-codex-'));
    later(() => rmSync(dir, { recursive: true, force: true }));
    const outside = path.join(dir, 'outside');
    const server = await serveByAttempt({
      '1-1': [
        { shell: `mkdir -p ${outside}; echo x > ${outside}/escaped; echo "outside: $?"` },
        { shell: "mkdir -p src && printf 'export const greet = () => 1;\\n' > src/greeter.js" },
        tick(TASKS, '1.1'),
        complete('The greeter exists.'),
      ],
    });
    later(() => server.close());
    const result = await runCli(
      [
        ...['run', CHANGE, '--agent', 'codex', '--json', '--on-complete', 'keep'],
        ...['--sandbox', '--max-retries', '0'],
      ],
      { cwd: repo.dir, env: codexEnv(dir, server.baseUrl), timeoutMs: 240_000 },
    );
    expect(server.errors.map((e) => e.message)).toEqual([]);
    expect(result.exitCode, `${result.stderr}\n${result.stdout.slice(-3000)}`).toBe(0);
    const events = result.events();
    expect(events.find((e) => e.type === 'run.finished')).toMatchObject({ outcome: 'complete' });
    expect(repo.git('show', 'HEAD:src/greeter.js')).toContain('greet');
    expect(existsSync(path.join(outside, 'escaped'))).toBe(false);
    expect(server.toolOutputs[0]?.output).toMatch(/Read-only file system/);
    const blocked = events.find((e) => e.type === 'sandbox.blocked');
    // Its own state and the work tree are no refusal; the escape is, and so are Codex's update
    // check and analytics, which it does without.
    expect(blocked?.blocked).toEqual(
      expect.arrayContaining([
        { kind: 'write', target: path.join(realpathSync(dir), 'outside', 'escaped'), count: 1 },
      ]),
    );
    const writes = (blocked?.blocked as { kind: string; target: string }[]).filter(
      (b) => b.kind === 'write',
    );
    expect(writes.map((b) => b.target)).toEqual([
      path.join(realpathSync(dir), 'outside'),
      path.join(realpathSync(dir), 'outside', 'escaped'),
    ]);
  });
});
