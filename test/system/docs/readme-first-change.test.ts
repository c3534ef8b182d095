import { execFile } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_PATH } from '../../support/cli.js';
import { FAKE_AGENT, quote } from '../../support/fake-agent.js';
import { cleanGitEnv, sh } from '../../support/temp-repo.js';

// README.md, "Your first change": its shell blocks run as written, one after the other, in a
// temporary folder holding `your-project` (a git repository with one commit), with `ralphtool`
// on PATH (as `npm link` puts it), the real OpenSpec CLI, and a scripted agent as `claude` (the
// fake agent speaking Claude Code's stream, logged in). The README's sample output and branch
// are checked against what the commands really print.

const run = promisify(execFile);
const README = readFileSync(path.resolve('README.md'), 'utf8');
const OPENSPEC = path.resolve('node_modules/.bin/openspec');
const CHANGE = 'add-greeting';

let scratch: string | null = null;
afterEach(() => {
  if (scratch !== null) rmSync(scratch, { recursive: true, force: true });
  scratch = null;
});

/** The section's fenced blocks of one language, in order (a `## ` inside a fence is no heading). */
function blocks(markdown: string, section: string, lang: string): string[] {
  const lines = markdown.split('\n');
  const start = lines.indexOf(`## ${section}`);
  expect(start, `README has no "## ${section}"`).toBeGreaterThanOrEqual(0);
  const found: string[] = [];
  let fence: { lang: string; lines: string[] } | null = null;
  for (const line of lines.slice(start + 1)) {
    if (fence === null && line.startsWith('## ')) break;
    if (line.startsWith('```')) {
      if (fence === null) fence = { lang: line.slice(3).trim(), lines: [] };
      else {
        if (fence.lang === lang) found.push(fence.lines.join('\n'));
        fence = null;
      }
    } else fence?.lines.push(line);
  }
  return found;
}

/** What an agent does for each story: story 2 fails once, so the retry shows. */
const SCENARIO = {
  '1-*': [
    { write: 'src/greet.js', content: 'export const greet = (name) => `Hello, ${name}!`;\n' },
    { tick: 'all' },
    { signal: 'COMPLETE' },
  ],
  '2-1': [{ signal: 'FAILED: bin/ does not exist yet; creating it next time' }],
  '2-*': [
    { write: 'bin/greet.js', content: "import { greet } from '../src/greet.js';\n" },
    { tick: 'all' },
    { signal: 'COMPLETE' },
  ],
  '3-*': [
    { append: 'README.md', content: '\nRun `node bin/greet.js Ann`.\n' },
    { tick: 'all' },
    { signal: 'COMPLETE' },
  ],
};

function executable(file: string, text: string): void {
  writeFileSync(file, text);
  chmodSync(file, 0o755);
}

describe('README: your first change', () => {
  it('runs as written and gives the branch it shows', async () => {
    scratch = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'ralphtool-readme-')));
    const bin = path.join(scratch, 'bin');
    const home = path.join(scratch, 'home');
    const project = path.join(scratch, 'your-project');
    mkdirSync(bin);
    mkdirSync(home);
    mkdirSync(project);
    // `npm link`'s ralphtool, OpenSpec's CLI, and `claude` (its version, its login, its stream).
    executable(
      path.join(bin, 'ralphtool'),
      `#!/bin/sh\nexec ${quote(process.execPath)} ${quote(CLI_PATH)} "$@"\n`,
    );
    symlinkSync(OPENSPEC, path.join(bin, 'openspec'));
    executable(
      path.join(bin, 'claude'),
      `#!/bin/sh\nif [ "$1" = --version ]; then echo "2.1.197 (Claude Code)"; exit 0; fi\nexec ${quote(process.execPath)} ${quote(FAKE_AGENT)} "$@"\n`,
    );
    const scenario = path.join(scratch, 'scenario.json');
    writeFileSync(scenario, JSON.stringify(SCENARIO));
    sh(project, 'init', '-q', '-b', 'main');
    sh(project, 'config', 'user.name', 'Ann Example');
    sh(project, 'config', 'user.email', 'ann@example.com');
    sh(project, 'config', 'commit.gpgsign', 'false');
    writeFileSync(path.join(project, 'README.md'), '# your project\n');
    sh(project, 'add', '-A');
    sh(project, 'commit', '-q', '-m', 'first commit');

    const script = blocks(README, 'Your first change', 'sh');
    expect(script.length).toBeGreaterThanOrEqual(4);
    const env: NodeJS.ProcessEnv = {
      ...cleanGitEnv(),
      PATH: [bin, path.dirname(process.execPath), '/usr/bin', '/bin'].join(path.delimiter),
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, '.config'),
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      OPENSPEC_TELEMETRY: '0',
      NO_COLOR: '1',
      FAKE_AGENT_FORMAT: 'claude',
      FAKE_AGENT_SCENARIO: scenario,
      // Claude Code as root needs it (README, Agents); the fake one is asked the same way.
      IS_SANDBOX: '1',
      RALPHTOOL_CLAUDE_BIN: undefined,
    };
    // One shell, as a person types the blocks one after the other; any failing command fails it.
    const result = await run('bash', ['-e', '-c', script.join('\n')], {
      cwd: scratch,
      env,
      timeout: 240_000,
      maxBuffer: 16 * 1024 * 1024,
    }).catch((error: { stdout?: string; stderr?: string; code?: number }) => {
      throw new Error(`exit ${error.code}\n${error.stdout}\n${error.stderr}`);
    });
    const out = result.stdout;

    // `ralphtool show`, `doctor` and `run` said what the README says they say.
    expect(out).toMatch(/^\s*1\. Greeting function$/m);
    expect(out).toContain('Ready:');
    const [seen, branch] = blocks(README, 'Your first change', '');
    for (const line of (seen ?? '').split('\n')) {
      if (line.trim() === '...' || line.trim() === '') continue;
      expect(out).toMatch(new RegExp(`^${shape(line)}$`, 'm'));
    }
    // The branch: one checkpoint per story on top of the start, as shown.
    const log = sh(project, 'log', '--format=%s', `main..ralph/${CHANGE}`).trim().split('\n');
    expect(log).toEqual((branch ?? '').split('\n').map((line) => line.replace(/^[0-9a-f]+ /, '')));
    expect(out).toContain(sh(project, 'log', '--oneline', `main..ralph/${CHANGE}`).trim());
    expect(sh(project, 'branch', '--show-current').trim()).toBe(`ralph/${CHANGE}`);
    expect(readFileSync(path.join(project, 'src/greet.js'), 'utf8')).toContain('Hello');
  });
});

/** A sample line as a pattern: its figures (counts, costs, times, hashes) may be any. */
function shape(line: string): string {
  const figure = /(?:\d+h )?(?:\d+m )?\d+s\b|\$\d+(?:\.\d+)?|—|\b[0-9a-f]{7,8}\b|\d+/g;
  const escape = (text: string): string =>
    text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ {2,}/g, ' +');
  return line
    .split(figure)
    .map(escape)
    .join('(?:(?:\\d+h )?(?:\\d+m )?\\d+s|\\$\\d+(?:\\.\\d+)?|—|[0-9a-f]{7,8}|\\d+)');
}
