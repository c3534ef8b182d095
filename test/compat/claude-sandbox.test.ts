// `ralphtool run --agent claude --sandbox`: the REAL Claude Code binary inside the sandbox,
// talking to the scripted model on loopback through the sandbox's proxy (docs/sandbox.md). Its
// own Bash tool reaches for what the policy forbids and gets nothing; the story is still done.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { claudeBinPath, claudeEnv, startModelServer } from '../support/model-server.js';
import { undoAfterEach } from '../support/e2e-cleanups.js';
import { sandboxToolsAvailable } from '../support/sandbox-tools.js';
import { scriptByAttempt } from './conversations.js';

const CHANGE = 'add-greeter';
const TASKS = `openspec/changes/${CHANGE}/tasks.md`;
const KEY = 'PRIVATE-KEY-claude-7d21';
const TOKEN = 'ghp_claudesandboxtoken1234567890abcd';
const { later, repoWith } = undoAfterEach(CHANGE);

describe.skipIf(!sandboxToolsAvailable())('ralphtool run --agent claude --sandbox', () => {
  it('completes a story through the scripted API while the agent gets nothing outside the policy', async () => {
    const repo = repoWith([{ title: 'Greeter', tasks: ['Create the greeter'] }]);
    const home = mkdtempSync(path.join(os.tmpdir(), 'ralphtool-sandbox-home-'));
    const outside = mkdtempSync(path.join(os.tmpdir(), 'ralphtool-sandbox-outside-'));
    later(() => rmSync(home, { recursive: true, force: true }));
    later(() => rmSync(outside, { recursive: true, force: true }));
    mkdirSync(path.join(home, '.ssh'));
    writeFileSync(path.join(home, '.ssh', 'id_rsa'), `${KEY}\n`);
    let deniedHits = 0;
    const denied = createServer((_, res) => {
      deniedHits += 1;
      res.end('denied-answered');
    });
    await new Promise<void>((done) => denied.listen(0, '127.0.0.1', done));
    later(() => new Promise<void>((done) => denied.close(() => done())));
    const deniedPort = (denied.address() as AddressInfo).port;

    const probe = [
      `echo "ssh: $(cat ~/.ssh/id_rsa 2>&1)"`,
      `echo "outside: $( (echo x > ${outside}/escaped) 2>&1 )"`,
      `echo "token: \${GH_TOKEN:-unset}"`,
      `echo "denied: $(curl -s -m 10 http://127.0.0.1:${String(deniedPort)}/ 2>&1)"`,
    ].join('; ');
    const server = await startModelServer(
      scriptByAttempt({
        '1-1': [
          [{ tool: 'Bash', input: { command: probe, description: 'Look around' } }],
          [
            {
              tool: 'Bash',
              input: {
                command: `mkdir -p src && echo "export const greet = () => 'hi';" > src/greeter.js && sed -i 's/^- \\[ \\] 1\\.1 /- [x] 1.1 /' ${TASKS}`,
                description: 'Write the greeter and tick the task',
              },
            },
          ],
          [{ text: 'The greeter exists.\n\n<promise>COMPLETE</promise>' }],
        ],
      }),
    );
    later(() => server.close());

    const result = await runCli(
      [
        ...['run', CHANGE, '--agent', 'claude', '--json', '--on-complete', 'keep'],
        ...['--sandbox', '--max-retries', '0'],
      ],
      {
        cwd: repo.dir,
        env: {
          ...claudeEnv(server.url, home),
          RALPHTOOL_CLAUDE_BIN: claudeBinPath(),
          GH_TOKEN: TOKEN,
        },
        timeoutMs: 240_000,
      },
    );
    expect(server.errors.map((e) => e.message)).toEqual([]);
    expect(result.exitCode, result.stderr).toBe(0);
    const events = result.events();
    const started = events.find((e) => e.type === 'run.started');
    expect(started?.sandbox).toMatchObject({
      hosts: expect.arrayContaining([new URL(server.url).host]) as unknown,
    });
    expect(events.find((e) => e.type === 'run.finished')).toMatchObject({ outcome: 'complete' });

    const looked = server.toolResults.find((r) => r.content.includes('ssh:'))?.content ?? '';
    expect(looked).toContain('ssh: ');
    expect(looked).not.toContain(KEY);
    expect(looked).toMatch(/outside: .*Read-only file system/);
    expect(looked).toContain('token: unset');
    expect(looked).not.toContain('denied-answered');
    expect(deniedHits).toBe(0);
    expect(existsSync(path.join(outside, 'escaped'))).toBe(false);
    expect(repo.git('log', '-1', '--format=%s')).toContain('1');
    expect(repo.git('show', 'HEAD:src/greeter.js')).toContain('greet');
  });
});
