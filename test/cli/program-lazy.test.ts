import { Readable, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { CommanderError } from 'commander';
import { buildProgram, namedCommand } from '../../src/cli/program.js';
import { makeStyle } from '../../src/format/style.js';

// docs/contract.md ("Start-up"): a command line that names its command gets a program of that
// one command (so `list` loads no other command's options); it must parse, help and refuse
// exactly as the whole program does. Each line below ends in help or a refusal, never in a
// command's action, and goes through both programs.

const COMMANDS = [
  'list',
  'show',
  'run',
  'resume',
  'finish',
  'status',
  'report',
  'demo',
  'doctor',
  'init',
  'config',
  'worker',
];

/** What a program printed for a command line, and how commander ended it. */
async function outcome(argv: readonly string[], only: string | null): Promise<string> {
  let out = '';
  let err = '';
  const sink = (add: (text: string) => void): Writable =>
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        add(chunk.toString('utf8'));
        done();
      },
    });
  const io = {
    cwd: process.cwd(),
    env: { NO_COLOR: '1' },
    stdout: sink((t) => (out += t)),
    stderr: sink((t) => (err += t)),
    stdin: Readable.from([]),
    style: makeStyle(false),
    errStyle: makeStyle(false),
  };
  const program = await buildProgram(io, () => undefined, only);
  let ending = 'parsed';
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (error) {
    ending = error instanceof CommanderError ? `${error.code} ${error.exitCode}` : String(error);
  }
  return `${ending}\n--- stdout\n${out}--- stderr\n${err}`;
}

/** Lines that stop before any action: help, an unknown option, too many or too few words. */
function refusals(command: string): string[][] {
  return [
    [command, '--help'],
    [command, '-h'],
    ['-C', '.', command, '--help'],
    ['--cwd=.', command, '--help'],
    [command, '--no-such-flag'],
    [command, '--jsno'],
    [command, '-C'],
    [command, 'a', 'b', 'c', '--no-such-flag'],
    [command, '--cwd'],
  ];
}

describe('a program of the one command a line names', () => {
  it('names the command only when nothing but -C <dir> comes before it', () => {
    expect(namedCommand(['list'])).toBe('list');
    expect(namedCommand(['-C', 'x', 'show', 'a'])).toBe('show');
    expect(namedCommand(['-Cx', 'run'])).toBe('run');
    expect(namedCommand(['--cwd', 'list', 'status'])).toBe('status');
    expect(namedCommand(['--cwd=x', 'worker'])).toBe('worker');
    for (const whole of [
      [],
      ['--help'],
      ['help', 'list'],
      ['lsit'],
      ['--agent', 'claude', 'list'],
      ['-C'],
      ['--version'],
    ]) {
      expect(namedCommand(whole), whole.join(' ')).toBeNull();
    }
  });

  it('helps and refuses every command exactly as the whole program does', async () => {
    for (const command of COMMANDS) {
      for (const argv of refusals(command)) {
        const named = namedCommand(argv);
        expect(named, argv.join(' ')).toBe(command);
        expect(await outcome(argv, named), argv.join(' ')).toBe(await outcome(argv, null));
      }
    }
  });

  it('lists every command in the whole program, in the order its help shows them', async () => {
    const help = await outcome(['--help'], null);
    const listed = [...help.matchAll(/^ {2}([a-z]+) /gm)].map((m) => m[1]);
    expect(listed.filter((name) => name !== 'help')).toEqual(COMMANDS);
  });
});
