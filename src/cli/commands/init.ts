import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline/promises';
import { UsageError } from '../../core/errors.js';
import { INIT_AGENTS, initConfigText } from '../../core/init-config.js';
import { ON_PATH, reachable } from '../../core/reach.js';
import { VERIFY_MARKER_FILES } from '../../core/verify-inference.js';
import { gatherFacts } from '../../doctor/gather.js';
import { DEFAULT_RUN_OPTIONS } from '../../run/options.js';
import { verifyPlan } from '../../run/setup.js';
import type { CommandIO } from '../io.js';
import { settingsPlaces } from '../settings/load.js';
import { assertDirectory } from './cwd.js';

/** As for `doctor`: an agent's `--version` may be slow on a busy machine, never endless. */
const VERSION_TIMEOUT_MS = 30_000;

/**
 * `ralphtool init`: writes the repository's `.ralphtool/config.yaml` from what `doctor` finds
 * (the agents installed, a verify command inferred from the project's files), after showing it
 * and asking on a terminal, or at once with `--yes`. Never over an existing file.
 */
export async function initCommand(
  io: CommandIO,
  opts: { cwd: string; yes: boolean },
): Promise<number> {
  assertDirectory(opts.cwd);
  const places = await settingsPlaces(opts.cwd, io.env);
  if (places.root === null || places.repository === null) {
    throw new UsageError(
      `${opts.cwd} is not in a git repository: run \`ralphtool init\` in your repository (\`git init\` makes one)`,
    );
  }
  const file = places.repository;
  if (existsSync(file)) {
    throw new UsageError(
      `${file} exists already: edit it (\`ralphtool config\` shows what it sets), or remove it for init to write a new one`,
    );
  }
  const terminal = io.stdin.isTTY === true && (io.stderr as { isTTY?: boolean }).isTTY === true;
  if (!opts.yes && !terminal) {
    throw new UsageError(
      `init asks before it writes ${file}, and there is no terminal to ask on: pass --yes to write it`,
    );
  }
  const facts = await gatherFacts({
    cwd: opts.cwd,
    env: io.env,
    timeoutMs: DEFAULT_RUN_OPTIONS.commandTimeoutMs,
    versionTimeoutMs: VERSION_TIMEOUT_MS,
    uid: typeof process.getuid === 'function' ? process.getuid() : null,
  });
  const dirs = [places.root];
  if (facts.openspec.found) dirs.push(path.dirname(facts.openspec.root));
  const verify = verifyPlan([], dirs);
  const text = initConfigText({
    agents: INIT_AGENTS.filter((agent) => facts[agent].path !== null).map((agent) => ({
      agent,
      version: facts[agent].version,
    })),
    verify: {
      commands: verify.commands,
      from: VERIFY_MARKER_FILES.filter((marker) =>
        dirs.some((dir) => existsSync(path.join(dir, marker))),
      ),
    },
  });
  const reach = io.reach ?? ON_PATH;
  if (!opts.yes) {
    io.stderr.write(`${text}\n`);
    if (!(await confirm(io, `Write this to ${file}? [y/N] `))) {
      io.stderr.write('Nothing written.\n');
      return 0;
    }
  }
  await mkdir(path.dirname(file), { recursive: true });
  // `wx`: a file that appeared meanwhile is not overwritten either.
  await writeFile(file, text, { flag: 'wx' }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'EEXIST') throw new UsageError(`${file} exists already: nothing written`);
    throw error;
  });
  io.stdout.write(
    reachable(
      `Wrote ${file}.\n\`ralphtool config\` shows the settings a run uses; commit the file for the team.\n`,
      reach,
    ),
  );
  return 0;
}

/** Yes only for y or yes; Enter, anything else, Ctrl-D or Ctrl-C is no. */
async function confirm(io: CommandIO, query: string): Promise<boolean> {
  const rl = createInterface({ input: io.stdin, output: io.stderr, terminal: true });
  const closed = new Promise<null>((resolve) => rl.once('close', () => resolve(null)));
  rl.on('SIGINT', () => rl.close());
  try {
    const reply = await Promise.race([rl.question(query).catch(() => null), closed]);
    return reply !== null && /^y(es)?$/i.test(reply.trim());
  } finally {
    rl.close();
  }
}
