import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { refuseSpawnInContributorTier } from './tier-guard.js';

const EXIT_RECORDER = path.resolve('test/support/exit-recorder.mjs');

/**
 * Whether tmux can be used here. A contributor without tmux gets the terminal tests skipped;
 * under CI (CI=true, where .ci/run installs tmux) a missing tmux fails the test file instead,
 * so a green CI never hides skipped terminal tests.
 */
export function tmuxAvailable(): boolean {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    if (process.env.CI === 'true' || process.env.CI === '1') {
      throw new Error('tmux is required when CI is set (the terminal tests would be skipped)');
    }
    return false;
  }
}

/**
 * A program running in a real terminal under tmux, driven the way a person would:
 * keys in with send-keys, the screen read back with capture-pane.
 */
export class TmuxSession {
  private constructor(
    readonly name: string,
    private readonly exitFile: string,
  ) {}

  /** Starts `argv` (no shell: tmux is given the words) in a detached session of the given size. */
  static start(
    name: string,
    argv: readonly string[],
    options: { cwd: string; env: Record<string, string>; width?: number; height?: number },
  ): TmuxSession {
    refuseSpawnInContributorTier('a terminal under tmux');
    // A session takes the environment of the tmux server (the first test's, kept for every later
    // session), not this test's: what test/support/state-home.ts gives each test is passed on,
    // or one test's usage limit would pause another's UI through a state folder they share.
    const own = process.env.XDG_STATE_HOME;
    const env = { ...(own === undefined ? {} : { XDG_STATE_HOME: own }), ...options.env };
    const envArgs = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    const exitFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'ralphtool-tmux-')), 'exit');
    execFileSync('tmux', [
      'new-session',
      '-d',
      '-s',
      name,
      '-x',
      String(options.width ?? 100),
      '-y',
      String(options.height ?? 30),
      '-c',
      options.cwd,
      ...envArgs,
      process.execPath,
      EXIT_RECORDER,
      exitFile,
      ...argv,
    ]);
    // Keep the pane after the program exits, so its last screen and exit status can be read.
    execFileSync('tmux', ['set-option', '-t', name, 'remain-on-exit', 'on']);
    return new TmuxSession(name, exitFile);
  }

  /** The visible screen, with lines the terminal wrapped joined back (`-J`). */
  screen(): string {
    return execFileSync('tmux', ['capture-pane', '-p', '-J', '-t', this.name], {
      encoding: 'utf8',
    });
  }

  /**
   * Everything the pane has shown, scrollback included, wrapped lines joined: for text that
   * may have scrolled off or been wrapped (a message printed as the program ends).
   */
  scrollback(): string {
    return execFileSync('tmux', ['capture-pane', '-p', '-J', '-S', '-', '-t', this.name], {
      encoding: 'utf8',
    });
  }

  keys(...keys: string[]): void {
    execFileSync('tmux', ['send-keys', '-t', this.name, ...keys]);
  }

  /** The program's exit status once it has ended, else null. */
  exitStatus(): number | null {
    if (!existsSync(this.exitFile)) return null;
    // Never an empty file taken for status 0 (the recorder renames a whole file into place).
    const text = readFileSync(this.exitFile, 'utf8').trim();
    return /^\d+$/.test(text) ? Number(text) : null;
  }

  /** Polls the screen until `test` holds; fails with the last screen after `timeoutMs`. */
  async waitFor(test: RegExp | ((screen: string) => boolean), timeoutMs = 20_000): Promise<string> {
    return this.poll(() => this.screen(), test, timeoutMs);
  }

  /**
   * Waits until `text` has been shown anywhere in the pane's history (a screen is read at one
   * moment; the program may still be drawing, and a long line may be wrapped).
   */
  async waitForText(text: string | RegExp, timeoutMs = 20_000): Promise<string> {
    const test = typeof text === 'string' ? (s: string) => s.includes(text) : text;
    return this.poll(() => this.scrollback(), test, timeoutMs);
  }

  private async poll(
    read: () => string,
    test: RegExp | ((screen: string) => boolean),
    timeoutMs: number,
  ): Promise<string> {
    const check = typeof test === 'function' ? test : (s: string) => test.test(s);
    const deadline = Date.now() + timeoutMs;
    let last = '';
    while (Date.now() < deadline) {
      last = read();
      if (check(last)) return last;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`timed out waiting for ${String(test)}; the screen was:\n${last}`);
  }

  async waitForExit(timeoutMs = 20_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const status = this.exitStatus();
      if (status !== null) return status;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`the program did not exit; the screen was:\n${this.screen()}`);
  }

  kill(): void {
    rmSync(path.dirname(this.exitFile), { recursive: true, force: true });
    try {
      execFileSync('tmux', ['kill-session', '-t', this.name], { stdio: 'ignore' });
    } catch {
      // already gone
    }
  }
}
