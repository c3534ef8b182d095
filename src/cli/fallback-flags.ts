import { Option } from 'commander';
import { UsageError } from '../core/errors.js';
import { AGENT_KINDS, type AgentKind, type FallbackAgent } from '../run/options.js';
import { parseChoice, parseName } from './options.js';

// `--fallback-agent` / `--fallback-model` (docs/contract.md, "Fallback agents"), validated apart
// from the loop's own flags so that each file stays about one thing.

/** Commander's collector of a repeatable flag, in the order given. */
export const repeatable = (value: string, previous: string[] | undefined): string[] => [
  ...(previous ?? []),
  value,
];

/** `--fallback-agent`, repeatable (`run`, `resume`, the bare command). */
export function fallbackAgentOption(): Option {
  return new Option(
    '--fallback-agent <name>',
    `at a usage or rate limit, run the same story with this agent at once instead of waiting; the agent before it is tried again after its reset (repeatable, in order of preference: ${AGENT_KINDS.join(', ')})`,
  ).argParser(repeatable);
}

/** `--fallback-model`, repeatable, paired by position with `--fallback-agent`. */
export function fallbackModelOption(): Option {
  return new Option(
    '--fallback-model <name>',
    "model of the fallback agent in the same position (repeatable; default: the agent's own)",
  ).argParser(repeatable);
}

/**
 * The fallback agents in order, each paired by position with its `--fallback-model`; null when
 * neither flag is given (a resume keeps the recorded ones). `--agent-command` for a `command`
 * fallback is checked by the caller, which knows the primary's.
 */
export function fallbackAgents(
  flags: { fallbackAgent?: string[]; fallbackModel?: string[] },
  primary: AgentKind,
): FallbackAgent[] | null {
  const names = flags.fallbackAgent ?? [];
  const models = flags.fallbackModel ?? [];
  if (flags.fallbackAgent === undefined && flags.fallbackModel === undefined) return null;
  if (models.length > names.length) {
    throw new UsageError(
      `--fallback-model: ${models.length} models for ${names.length} --fallback-agent${names.length === 1 ? '' : 's'}: each model goes with the fallback agent in the same position`,
    );
  }
  const seen = new Set<AgentKind>();
  return names.map((name, i) => {
    const agent = parseChoice(name, AGENT_KINDS, '--fallback-agent');
    if (agent === primary) {
      throw new UsageError(
        `--fallback-agent ${agent} is the run's own agent (--agent ${primary}): name another agent`,
      );
    }
    if (seen.has(agent)) {
      throw new UsageError(`--fallback-agent ${agent} is given twice: name each agent once`);
    }
    seen.add(agent);
    const model = models[i];
    if (model !== undefined) parseName(model, '--fallback-model');
    return { agent, model: model ?? null };
  });
}
