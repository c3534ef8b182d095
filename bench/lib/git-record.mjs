// Records every git process ralphtool starts, in order, with what it needs to be run again bare:
// its directory, arguments, GIT_* environment, stdin and stdout. One recording run per variant,
// not timed (the recording costs a bash and a `cat` per git process). The agent wrapper writes
// its own records into the same log, so a replay knows where the agent worked.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Buffer } from 'node:buffer';
import path from 'node:path';

// Fields end with US (0x1f), records with RS (0x1e): neither appears in git arguments or paths,
// and one record is one write(), so git processes started at the same moment never interleave.
const FIELD = '\x1f';
const RECORD = '\x1e';

/**
 * Writes the recording `git` into `<dir>/git-record/bin/` and returns that folder (put it first
 * on PATH). Its records go to `<dir>/git-record/log`, stdin and stdout of each call beside it.
 */
export function makeRecordingGit(dir) {
  const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  const base = path.join(dir, 'git-record');
  const bin = path.join(base, 'bin');
  const io = path.join(base, 'io');
  mkdirSync(bin, { recursive: true });
  mkdirSync(io, { recursive: true });
  const log = path.join(base, 'log');
  writeFileSync(log, '');
  const shim = path.join(bin, 'git');
  writeFileSync(
    shim,
    [
      '#!/bin/bash',
      `io=${JSON.stringify(io)}`,
      'id="$$-$RANDOM$RANDOM"',
      // A git kept open for a run (`update-ref --stdin`, ralphtool's ref writer) is spoken to
      // line by line: recorded once as it starts, with no input (a replay starts it once and
      // ends it at once, the transactions costing next to nothing), then git itself.
      'if [[ " $* " == *" update-ref --stdin "* ]]; then',
      '  : > "$io/$id.in"; : > "$io/$id.out"',
      '  start=$EPOCHREALTIME',
      `  printf -v rec '%s${'\x1f'}' git "$start" "$start" "$id" "$PWD" 0 "" 0 "$@"`,
      `  printf '%s${'\x1e'}' "$rec" >> ${JSON.stringify(log)}`,
      `  exec ${JSON.stringify(realGit)} "$@"`,
      'fi',
      'cat > "$io/$id.in"',
      // Whether a GIT_INDEX_FILE existed before git ran: one that did and that no earlier git
      // call wrote was copied there by ralphtool (a temporary index starting from the real one).
      'had_index=0',
      '[[ -n "${GIT_INDEX_FILE-}" && -e "$GIT_INDEX_FILE" ]] && had_index=1',
      'vars=""',
      'for v in $(compgen -e); do [[ $v == GIT_* ]] && vars+="$v=${!v}"$\'\\x1d\'; done',
      'start=$EPOCHREALTIME',
      `${JSON.stringify(realGit)} "$@" < "$io/$id.in" > "$io/$id.out"`,
      'code=$?',
      'end=$EPOCHREALTIME',
      'cat "$io/$id.out"',
      `printf -v rec '%s${'\\x1f'}' git "$start" "$end" "$id" "$PWD" "$had_index" "$vars" "$code" "$@"`,
      `printf '%s${'\\x1e'}' "$rec" >> ${JSON.stringify(log)}`,
      'exit $code',
      '',
    ].join('\n'),
  );
  chmodSync(shim, 0o755);
  return { bin, log, io };
}

/**
 * The agent wrapper's lines: runs the agent, notes its wall time for the timed runs
 * (`BENCH_AGENT_TIMES`) and, when recording, a record of where and as what it ran.
 * bash's EPOCHREALTIME needs no `date` process, so the wrapper adds a bash start and little else.
 */
export function agentWrapperScript() {
  return [
    '#!/bin/bash',
    'start=$EPOCHREALTIME',
    '"$BENCH_NODE" "$BENCH_FAKE_AGENT"',
    'code=$?',
    'end=$EPOCHREALTIME',
    'echo "$RALPHTOOL_STORY_ID-$RALPHTOOL_ATTEMPT $start $end" >> "$BENCH_AGENT_TIMES"',
    'if [[ -n "${BENCH_GIT_LOG-}" ]]; then',
    `  printf -v rec '%s${'\\x1f'}' agent "$start" "$end" "$RALPHTOOL_STORY_ID" "$PWD" "$RALPHTOOL_ATTEMPT" "$RALPHTOOL_CHANGE" "$code"`,
    `  printf '%s${'\\x1e'}' "$rec" >> "$BENCH_GIT_LOG"`,
    'fi',
    'exit $code',
    '',
  ].join('\n');
}

/** Seconds since the epoch (EPOCHREALTIME, `1700000000.123456`) as milliseconds. */
function epochMs(text) {
  return Number(text) * 1000;
}

/**
 * The log as entries in the order they started: `{ kind: 'git', startMs, endMs, cwd, hadIndex,
 * env, exitCode, args, stdin, stdout }` and `{ kind: 'agent', startMs, endMs, story, cwd,
 * attempt, change }`.
 */
export function readRecording({ log, io }) {
  const entries = readFileSync(log, 'utf8')
    .split(RECORD)
    .filter((record) => record !== '')
    .map((record) => {
      const fields = record.split(FIELD);
      fields.pop(); // the empty field after the last separator
      const [kind, start, end, id, cwd, ...rest] = fields;
      if (kind === 'agent') {
        const [attempt, change] = rest;
        return {
          kind,
          startMs: epochMs(start),
          endMs: epochMs(end),
          story: id,
          cwd,
          attempt,
          change,
        };
      }
      const [hadIndex, vars, code, ...args] = rest;
      const env = Object.fromEntries(
        vars
          .split('\x1d')
          .filter((pair) => pair !== '')
          .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
      );
      const file = (ext) => path.join(io, `${id}.${ext}`);
      return {
        kind,
        startMs: epochMs(start),
        endMs: epochMs(end),
        cwd,
        hadIndex: hadIndex === '1',
        env,
        exitCode: Number(code),
        args,
        stdin: existsSync(file('in')) ? readFileSync(file('in')) : Buffer.alloc(0),
        stdoutFile: file('out'),
      };
    });
  return entries.sort((a, b) => a.startMs - b.startMs);
}
