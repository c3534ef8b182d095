// `ralphtool run --agent opencode --sandbox`: the REAL OpenCode binary inside the sandbox, talking
// to the scripted model on loopback (a provider of its opencode.json) through the sandbox's proxy
// (docs/sandbox.md). It keeps its state in its XDG folders, completes the story, and a write
// outside the work tree is refused.
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { startModelServer } from '../support/model-server.js';
import { OPENCODE_MODEL, opencodeBinPath, opencodeEnv } from '../support/model-server-opencode.js';
import { undoAfterEach } from '../support/e2e-cleanups.js';
import { sandboxToolsAvailable } from '../support/sandbox-tools.js';
import { scriptByAttempt } from './conversations.js';

const CHANGE = 'add-greeter';
const TASKS = `openspec/changes/${CHANGE}/tasks.md`;
const { later, repoWith } = undoAfterEach(CHANGE);

describe.skipIf(!sandboxToolsAvailable())('ralphtool run --agent opencode --sandbox', () => {
  it('completes a story through the scripted API; a write outside the work tree is refused and said', async () => {
    const repo = repoWith([{ title: 'Greeter', tasks: ['Create the greeter'] }]);
    const home = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'ralphtool-sandbox-opencode-')));
    later(() => rmSync(home, { recursive: true, force: true }));
    const escaped = path.join(home, 'escaped');
    const bash = (command: string) => [{ tool: 'bash', input: { command, description: 'Work' } }];
    const server = await startModelServer(
      scriptByAttempt({
        '1-1': [
          bash(`echo x > ${escaped}; echo "outside: $?"`),
          bash("mkdir -p src && printf 'export const greet = () => 1;\\n' > src/greeter.js"),
          bash(`sed -i 's/^- \\[ \\] 1\\.1 /- [x] 1.1 /' ${TASKS}`),
          [{ text: 'The greeter exists.\n\n<promise>COMPLETE</promise>' }],
        ],
      }),
    );
    later(() => server.close());
    const result = await runCli(
      [
        ...['run', CHANGE, '--agent', 'opencode', '--model', OPENCODE_MODEL, '--json'],
        ...['--on-complete', 'keep', '--sandbox', '--max-retries', '0'],
      ],
      {
        cwd: repo.dir,
        env: { ...opencodeEnv(server.url, home), RALPHTOOL_OPENCODE_BIN: opencodeBinPath() },
        timeoutMs: 600_000,
      },
    );
    expect(server.errors.map((e) => e.message)).toEqual([]);
    expect(result.exitCode, `${result.stderr}\n${result.stdout.slice(-3000)}`).toBe(0);
    const events = result.events();
    expect(events.find((e) => e.type === 'run.finished')).toMatchObject({ outcome: 'complete' });
    expect(repo.git('show', 'HEAD:src/greeter.js')).toContain('greet');
    expect(existsSync(escaped)).toBe(false);
    expect(server.toolResults[0]?.content).toMatch(/Read-only file system/);
    const blocked = events.find((e) => e.type === 'sandbox.blocked');
    const writes = (blocked?.blocked as { kind: string; target: string }[])
      .filter((b) => b.kind === 'write')
      .map((b) => b.target);
    // The escape is refused, and so is OpenCode's rewrite of its own config (read-only inside:
    // it names the hosts the sandbox allows), which it does without; its state folders and the
    // work tree are no refusal.
    expect(writes).toEqual(
      expect.arrayContaining([escaped, path.join(home, '.config', 'opencode', 'opencode.json')]),
    );
    for (const allowed of [
      realpathSync(repo.dir),
      path.join(home, '.local'),
      path.join(home, '.cache'),
    ])
      expect(writes.filter((w) => w.startsWith(allowed))).toEqual([]);
  });
});
