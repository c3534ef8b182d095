// `ralphtool run --agent gemini --sandbox`: the REAL Gemini CLI inside the sandbox, talking to
// the scripted Gemini API on loopback through the sandbox's proxy (docs/sandbox.md). It writes
// its state in ~/.gemini, completes the story, and a write outside the work tree is refused.
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { contentsOf, startGeminiServer, type GeminiTurn } from '../support/gemini-server.js';
import { geminiEnv } from '../support/gemini-server-cli.js';
import { undoAfterEach } from '../support/e2e-cleanups.js';
import { sandboxToolsAvailable } from '../support/sandbox-tools.js';

const CHANGE = 'add-greeter';
const TASKS = `openspec/changes/${CHANGE}/tasks.md`;
const { later, repoWith } = undoAfterEach(CHANGE);

describe.skipIf(!sandboxToolsAvailable())('ralphtool run --agent gemini --sandbox', () => {
  it('completes a story through the scripted API; a write outside the work tree is refused and said', async () => {
    const repo = repoWith([{ title: 'Greeter', tasks: ['Create the greeter'] }]);
    const home = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'ralphtool-sandbox-gemini-')));
    later(() => rmSync(home, { recursive: true, force: true }));
    const escaped = path.join(home, 'escaped');
    const shell = (command: string): GeminiTurn => [
      { tool: 'run_shell_command', args: { command, description: 'Work' } },
    ];
    // One conversation: each answer by how many model turns it already holds.
    const turns: GeminiTurn[] = [
      shell(`echo x > ${escaped}; echo "outside: $?"`),
      shell("mkdir -p src && printf 'export const greet = () => 1;\\n' > src/greeter.js"),
      shell(`sed -i 's/^- \\[ \\] 1\\.1 /- [x] 1.1 /' ${TASKS}`),
      [{ text: 'The greeter exists.\n\n' }, { text: '<promise>COMPLETE</promise>' }],
    ];
    const server = await startGeminiServer(
      ({ body }) => turns[contentsOf(body).filter((c) => c.role === 'model').length],
    );
    later(() => server.close());
    const result = await runCli(
      [
        ...['run', CHANGE, '--agent', 'gemini', '--json', '--on-complete', 'keep'],
        ...['--sandbox', '--max-retries', '0'],
      ],
      { cwd: repo.dir, env: geminiEnv(server.url, home), timeoutMs: 300_000 },
    );
    expect(server.errors.map((e) => e.message)).toEqual([]);
    expect(result.exitCode, `${result.stderr}\n${result.stdout.slice(-3000)}`).toBe(0);
    const events = result.events();
    expect(events.find((e) => e.type === 'run.finished')).toMatchObject({ outcome: 'complete' });
    expect(repo.git('show', 'HEAD:src/greeter.js')).toContain('greet');
    expect(existsSync(escaped)).toBe(false);
    expect(JSON.stringify(server.toolResponses()[0]?.response)).toMatch(/Read-only file system/);
    const blocked = events.find((e) => e.type === 'sandbox.blocked');
    const writes = (blocked?.blocked as { kind: string; target: string }[]).filter(
      (b) => b.kind === 'write',
    );
    expect(writes.map((b) => b.target)).toEqual([escaped]);
  });
});
