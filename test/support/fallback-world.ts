import { chmodSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { FaultWorld } from '../system/faults/support/world.js';
import type { Scenario, Step } from './fake-agent.js';
import { FAKE_AGENT } from './fake-agent.js';
import type { CliRun } from './cli.js';
import { LiveCli } from './live-cli.js';

// Fallback agents (docs/contract.md, "Fallback agents") need agents of different names, so the
// vendor agents themselves are stand-ins: `claude` (through RALPHTOOL_CLAUDE_BIN) and `codex`
// (on PATH) are executables that play the fake agent's scenario in Claude Code's stream-json
// and Codex's `exec --json` formats, each with its own scenario and log, as real processes.

export type VendorName = 'claude' | 'codex';

/** A world whose `claude` and `codex` are scripted executables. */
export class FallbackWorld extends FaultWorld {
  readonly bin: string;

  constructor(change: string, storyCount: number) {
    super(change, storyCount, { userFiles: false });
    this.bin = path.join(this.scratch, 'bin');
    mkdirSync(this.bin, { recursive: true });
    for (const name of ['claude', 'codex'] as const) this.writeAgent(name);
  }

  /** Each agent's scenario (see test/fixtures/agents/fake-agent.mjs). */
  agents(scenarios: Partial<Record<VendorName, Scenario>>): this {
    for (const name of ['claude', 'codex'] as const) {
      writeFileSync(this.scenarioOf(name), JSON.stringify(scenarios[name] ?? {}));
    }
    return this;
  }

  /** The `story-attempt` keys the agent was started for, one per start (a repeat: `#n`). */
  starts(name: VendorName): string[] {
    let files: string[];
    try {
      files = readdirSync(path.join(this.scratch, `log-${name}`));
    } catch {
      return [];
    }
    return files
      .filter((f) => f.startsWith('invocation-'))
      .map((f) => f.slice('invocation-'.length, -'.json'.length))
      .sort();
  }

  /** The environment: claude through its variable, codex on PATH, Claude Code's sandbox rule met. */
  fallbackEnv(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
    return this.env({
      RALPHTOOL_CLAUDE_BIN: path.join(this.bin, 'claude'),
      PATH: `${this.bin}${path.delimiter}${process.env.PATH ?? ''}`,
      IS_SANDBOX: '1',
      ...extra,
    });
  }

  /** `ralphtool <args>` run to its end with both agents. */
  ralph(args: readonly string[], env: Record<string, string | undefined> = {}): Promise<CliRun> {
    return this.cli(args, this.fallbackEnv(env));
  }

  /** `run|resume <change> --agent claude --json --on-complete keep <extra>` to its end. */
  loopWith(command: 'run' | 'resume', extra: readonly string[] = []): Promise<CliRun> {
    return this.ralph(this.loopArgs(command, extra));
  }

  /** The same as a live process. */
  spawnWith(command: 'run' | 'resume', extra: readonly string[] = []): LiveCli {
    return new LiveCli(this.loopArgs(command, extra), this.dir, this.fallbackEnv());
  }

  private loopArgs(command: 'run' | 'resume', extra: readonly string[]): string[] {
    return [command, this.change, '--agent', 'claude', '--json', '--on-complete', 'keep', ...extra];
  }

  private scenarioOf(name: VendorName): string {
    return path.join(this.scratch, `${name}.json`);
  }

  private writeAgent(name: VendorName): void {
    const file = path.join(this.bin, name);
    const script = [
      `#!${process.execPath}`,
      `process.env.FAKE_AGENT_FORMAT = ${JSON.stringify(name)};`,
      `process.env.FAKE_AGENT_SCENARIO = ${JSON.stringify(this.scenarioOf(name))};`,
      `process.env.FAKE_AGENT_LOG_DIR = ${JSON.stringify(path.join(this.scratch, `log-${name}`))};`,
      `await import(${JSON.stringify(pathToFileURL(FAKE_AGENT).href)});`,
      '',
    ].join('\n');
    writeFileSync(file, script);
    chmodSync(file, 0o755);
    writeFileSync(this.scenarioOf(name), '{}');
  }
}

/**
 * Claude Code at a claude.ai subscription's usage limit, as Claude Code 2.1.197 prints it
 * (test/fixtures/claude-stream/429-subscription-no-retry.jsonl, the reset moved): the
 * `rate_limit_event` with `status: "rejected"` and its reset, then the error `result` with
 * `api_error_status: 429`, exit 1.
 */
export function claudeUsageLimit(resetsAt: Date): Step[] {
  const seconds = Math.floor(resetsAt.getTime() / 1000);
  return [
    { write: 'src/partial.txt', content: 'half-way\n' },
    {
      raw: JSON.stringify({
        type: 'rate_limit_event',
        rate_limit_info: {
          status: 'rejected',
          resetsAt: seconds,
          rateLimitType: 'five_hour',
          isUsingOverage: false,
        },
        uuid: '19525acc-c2c2-4d25-b38d-fc9cca04aa0e',
        session_id: 'ee9ef300-e62d-4dbf-8e25-3f23dc01a718',
      }),
    },
    {
      raw: JSON.stringify({
        type: 'result',
        subtype: 'success',
        is_error: true,
        api_error_status: 429,
        duration_ms: 664,
        duration_api_ms: 0,
        num_turns: 1,
        result: "You've hit your session limit · resets 4:57pm (UTC)",
        stop_reason: 'stop_sequence',
        session_id: 'ee9ef300-e62d-4dbf-8e25-3f23dc01a718',
        total_cost_usd: 0,
        usage: {
          input_tokens: 0,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          output_tokens: 0,
        },
      }),
    },
    { exit: 1 },
  ];
}

/** Codex at its usage limit: `turn.failed` with Codex's own message and its reset. */
export function codexUsageLimit(seconds: number): Step[] {
  return [
    { write: 'src/partial.txt', content: 'codex half-way\n' },
    {
      isError: `You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing) or try again in ${seconds} seconds.`,
    },
    { exit: 1 },
  ];
}

/** Claude Code's `rate_limit_event` with the window's utilisation (not a limit: a report). */
export function claudeUtilisation(
  fraction: number,
  resetsAt: Date,
  status = 'allowed_warning',
): Step {
  return {
    raw: JSON.stringify({
      type: 'rate_limit_event',
      rate_limit_info: {
        status,
        resetsAt: Math.floor(resetsAt.getTime() / 1000),
        rateLimitType: 'five_hour',
        utilization: fraction,
        isUsingOverage: false,
      },
      uuid: '29525acc-c2c2-4d25-b38d-fc9cca04aa0e',
      session_id: 'fe9ef300-e62d-4dbf-8e25-3f23dc01a718',
    }),
  };
}
