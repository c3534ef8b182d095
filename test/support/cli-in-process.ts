import { Readable, Writable } from 'node:stream';
import { runProgram } from '../../src/cli/program.js';
import { colourEnabled, makeStyle } from '../../src/format/style.js';

export interface InProcessCliRun {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as NDJSON, for `--json` runs. */
  events(): { type: string; [key: string]: unknown }[];
}

/**
 * `ralphtool <args>` run inside the test process: the same program (runProgram, as
 * src/cli/entry.ts calls it) with stdout and stderr captured and an empty stdin that is not a
 * terminal. For what the CLI decides before any process matters (refusals of bad usage);
 * git's environment is the test process's own, so a test that needs git to see other
 * variables (GIT_CEILING_DIRECTORIES…) spawns the CLI instead.
 */
export async function runCliInProcess(
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string | undefined> },
): Promise<InProcessCliRun> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', ...options.env };
  delete env.FORCE_COLOR;
  const stdout = collector();
  const stderr = collector();
  const { exitCode } = await runProgram(args, {
    cwd: options.cwd,
    env,
    stdout: stdout.stream,
    stderr: stderr.stream,
    stdin: Readable.from([]),
    style: makeStyle(colourEnabled(env, false)),
    errStyle: makeStyle(colourEnabled(env, false)),
  });
  return {
    exitCode,
    stdout: stdout.text(),
    stderr: stderr.text(),
    events: () =>
      stdout
        .text()
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as { type: string; [key: string]: unknown }),
  };
}

/** A writable stream that keeps what was written to it. */
function collector(): { stream: Writable; text(): string } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
      done();
    },
  });
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}
