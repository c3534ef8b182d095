import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { DEMO_CHANGE } from '../../../src/demo/project.js';
import { execProgram } from '../../../src/process/exec.js';
import { CLI_PATH } from '../../support/cli.js';
import { cleanGitEnv } from '../../support/temp-repo.js';
import { demoDirFrom, makeDemoSandbox, type DemoSandbox } from '../../demo/helpers.js';

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd: dir, env: cleanGitEnv(), encoding: 'utf8' });
}

/** A private tmux server (its own socket) driving one terminal, read as a person would. */
class Terminal {
  private readonly session = 'demo';

  constructor(private readonly sandbox: DemoSandbox) {}

  private async tmux(...args: string[]): Promise<string> {
    // The server's socket lives in the sandbox, so removing the sandbox removes it.
    const socket = path.join(this.sandbox.root, 'tmux.sock');
    const result = await execProgram('tmux', ['-S', socket, ...args], {
      baseEnv: process.env,
      cwd: this.sandbox.root,
      env: { ...this.sandbox.env, NO_COLOR: '1', TMUX: undefined },
      timeoutMs: 15_000,
    });
    return result.stdout;
  }

  /**
   * Runs the command in the terminal, then prints its exit status and keeps the pane open
   * (tmux's own pane_dead_status is not always filled in on a loaded machine).
   */
  async start(command: readonly string[]): Promise<void> {
    const script = '"$@"; echo "EXIT=$?"; exec sleep 600';
    await this.tmux(
      'new-session',
      '-d',
      '-s',
      this.session,
      '-x',
      '100',
      '-y',
      '30',
      'sh',
      '-c',
      script,
      'sh',
      ...command,
    );
  }

  async keys(...keys: string[]): Promise<void> {
    await this.tmux('send-keys', '-t', this.session, ...keys);
  }

  async screen(history = false): Promise<string> {
    return this.tmux('capture-pane', '-p', '-t', this.session, ...(history ? ['-S', '-200'] : []));
  }

  async waitFor(pattern: RegExp, timeoutMs = 60_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    let screen = '';
    while (Date.now() < deadline) {
      screen = await this.screen();
      if (pattern.test(screen)) return screen;
      await sleep(200);
    }
    throw new Error(`timed out waiting for ${String(pattern)}; the screen shows:\n${screen}`);
  }

  /**
   * Presses a key until the screen shows the pattern: a key typed before the UI has put
   * the terminal in raw mode can be swallowed, and a person would press it again.
   */
  async press(key: string, pattern: RegExp, tries = 3): Promise<string> {
    for (let i = 1; ; i++) {
      await this.keys(key);
      try {
        return await this.waitFor(pattern, i < tries ? 10_000 : 60_000);
      } catch (error) {
        if (i >= tries) throw error;
      }
    }
  }

  /** The program's exit status once it has exited. */
  async exitStatus(timeoutMs = 30_000): Promise<number> {
    const screen = await this.waitFor(/^EXIT=\d+$/m, timeoutMs);
    return Number(/^EXIT=(\d+)$/m.exec(screen)?.[1]);
  }

  /** The pid of the program the pane runs (the child of the pane's `sh`). */
  async programPid(): Promise<number> {
    const shell = Number(
      (await this.tmux('list-panes', '-t', this.session, '-F', '#{pane_pid}')).trim(),
    );
    const children = readFileSync(`/proc/${shell}/task/${shell}/children`, 'utf8').trim();
    return Number(children.split(/\s+/)[0]);
  }

  async kill(): Promise<void> {
    await this.tmux('kill-server').catch(() => undefined);
  }
}

describe('ralphtool demo in a terminal', () => {
  let sandbox: DemoSandbox | null = null;
  let terminal: Terminal | null = null;
  afterEach(async () => {
    await terminal?.kill();
    sandbox?.remove();
  });

  it('runs in the UI: open, run, watch it complete, apply cleanup, see the changed files, quit', async () => {
    sandbox = makeDemoSandbox();
    terminal = new Terminal(sandbox);
    const started = Date.now();
    await terminal.start([process.execPath, CLI_PATH, 'demo']);

    const first = await terminal.waitFor(/› add-text-helpers[\s\S]*Enter open/);
    // The UI hides what the demo printed before it: what to press is said in the UI itself.
    expect(first).toContain('Demo: Enter opens add-text-helpers, then r runs it');
    await terminal.press('Enter', /agent demo \(scripted, no AI\)[\s\S]*r run/);
    await terminal.press('r', /stories · \d+s/);
    const completion = await terminal.waitFor(/All 4 stories are done\.[\s\S]*› Cleanup/);
    console.log(
      `ralphtool demo (TTY) reached completion in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    expect(completion).toContain('original branch main');

    const result = await terminal.press('Enter', /Changed files against main \(9\)/);
    expect(result).toContain('Cleanup done: you are on main');
    expect(result).toMatch(/A src\/count-words\.js/);
    expect(result).toMatch(/M README\.md/);
    expect(result).toMatch(/✓ 2 Word count · 2 attempts/);

    await terminal.keys('q');
    expect(await terminal.exitStatus()).toBe(0);
    const after = await terminal.screen(true);
    expect(after).toContain('The demo repository stays in place');
    expect(after).toMatch(/work is back on main as uncommitted changes/);

    const dir = demoDirFrom(after);
    expect(git(dir, 'symbolic-ref', '--short', 'HEAD').trim()).toBe('main');
    expect(git(dir, 'branch', '--list', `ralph/${DEMO_CHANGE}`)).toBe('');
    const status = git(dir, 'status', '--porcelain', '--untracked-files=all');
    expect(status).toContain('?? src/count-words.js');
    expect(status).toContain(' M README.md');
    const tests = await execProgram(process.execPath, ['--test'], {
      baseEnv: process.env,
      cwd: dir,
      env: { NODE_TEST_CONTEXT: undefined },
      timeoutMs: 60_000,
      reject: false,
    });
    expect(tests.exitCode).toBe(0);
  }, 180_000);

  it('SIGTERM at the completion choice ends the demo (130): the choice unanswered, the run left for finish', async () => {
    sandbox = makeDemoSandbox();
    terminal = new Terminal(sandbox);
    await terminal.start([process.execPath, CLI_PATH, 'demo']);
    await terminal.waitFor(/› add-text-helpers[\s\S]*Enter open/);
    await terminal.press('Enter', /agent demo \(scripted, no AI\)[\s\S]*r run/);
    await terminal.press('r', /stories · \d+s/);
    await terminal.waitFor(/All 4 stories are done\.[\s\S]*› Cleanup/);

    const pid = await terminal.programPid();
    expect(pid).toBeGreaterThan(1);
    process.kill(pid, 'SIGTERM');
    expect(await terminal.exitStatus()).toBe(130);
    const after = await terminal.screen(true);
    expect(after).toContain('The demo repository stays in place');
    // Nobody chose: the work stays on the run's branch, recorded for `ralphtool finish`.
    const dir = demoDirFrom(after);
    expect(git(dir, 'symbolic-ref', '--short', 'HEAD').trim()).toBe(`ralph/${DEMO_CHANGE}`);
    const status = await execProgram(process.execPath, [CLI_PATH, 'status'], {
      baseEnv: process.env,
      cwd: dir,
      env: sandbox.env,
      timeoutMs: 60_000,
      reject: false,
    });
    expect(status.stdout).toContain(`finish ${DEMO_CHANGE} --cleanup|--keep`);
  }, 180_000);
});
