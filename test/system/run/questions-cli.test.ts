import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually, groupMembers, killGroup } from '../../support/processes.js';
import { deadPid } from '../faults/support/crash.js';
import { FaultWorld, succeed } from '../faults/support/world.js';

// `ralphtool run` / `resume --answer` / `status` on a run whose agent asked a question
// (contract "Questions"), with the real CLI and the executable fake agent.

const CHANGE = 'asks-questions';
const QUESTION = 'Which database: Postgres or SQLite?';
const ANSWER = 'SQLite, the file lives in data/app.db';

let world: FaultWorld | undefined;
afterEach(() => {
  world?.remove();
  world = undefined;
});

/** Story 1 completes; story 2 starts working, then asks. */
function askingWorld(): FaultWorld {
  return new FaultWorld(CHANGE, 2).scenario({
    '1-1': succeed('src/one.txt', 'one\n'),
    '2-1': [
      { write: 'src/half.txt', content: 'half-way\n' },
      { append: 'docs/draft.md', content: 'agent scribble\n' },
      { signal: `BLOCKED: ${QUESTION}` },
    ],
  });
}

/** Everything a refused command must leave as it was: the record, the refs, HEAD, the files. */
function fingerprint(w: FaultWorld): string {
  return [
    readFileSync(w.stateFile, 'utf8'),
    w.git('for-each-ref', '--format=%(refname) %(objectname)'),
    w.git('rev-parse', 'HEAD'),
    w.git('status', '--porcelain=v1', '--untracked-files=all', '--ignored'),
  ].join('\n');
}

/** The prompts an attempt's agent got, in order (the fake agent appends each one). */
function prompts(w: FaultWorld, storyId: string, attempt: number): string[] {
  const text = readFileSync(path.join(w.logDir, `prompt-${storyId}-${attempt}.md`), 'utf8');
  return text.split(/^(?=# Working on Story)/m).filter((p) => p.trim() !== '');
}

function expectAnswered(prompt: string | undefined, answer: string): void {
  expect(prompt).toContain('## Answer to your question');
  expect(prompt).toContain(`> ${QUESTION}`);
  expect(prompt).toContain(answer);
}

describe('ralphtool and a blocked run', () => {
  it('exit 4 with the question; status shows it; resume without an answer is refused; resume --answer carries it until the story is accepted', async () => {
    world = askingWorld();
    const w = world;
    const blocked = await w.loop('run');
    expect(blocked.exitCode, blocked.stderr).toBe(4);
    const events = blocked.events();
    expect(events.filter((e) => e.type === 'run.awaiting-choice')).toEqual([]);
    expect(events.filter((e) => e.type === 'attempt.failed')).toEqual([]);
    expect(events.find((e) => e.type === 'run.finished')).toMatchObject({
      outcome: 'blocked',
      choice: null,
      question: { storyId: '2', text: QUESTION },
    });
    // Reverted to checkpoint 1 (the agent's edits gone, the user's files as they were).
    expect(w.exists('src/half.txt')).toBe(false);
    expect(w.userFilesChanged()).toEqual([]);
    expect(w.state()).toMatchObject({
      status: 'active',
      outcome: 'blocked',
      pid: null,
      question: { storyId: '2', attempt: 1, text: QUESTION, answer: null },
    });

    // status: the question and the exact command, as text and as JSON.
    const status = await w.cli(['status']);
    expect(status.exitCode, status.stderr).toBe(0);
    expect(status.stdout).toContain(`blocked: story 2 asks: ${QUESTION}`);
    expect(status.stdout).toContain(`ralphtool resume ${CHANGE} --answer "…"`);
    const json = await w.statusJson();
    expect(json.runs[0]).toMatchObject({ question: { storyId: '2', text: QUESTION } });

    // resume without an answer: one line, exit 2, nothing touched.
    const before = fingerprint(w);
    const refused = await w.loop('resume');
    expect(refused.exitCode).toBe(2);
    // With --json the refusal is the one error event on stdout too.
    expect(refused.events().map((e) => e.type)).toEqual(['error']);
    const lines = refused.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(QUESTION);
    expect(lines[0]).toContain(`ralphtool resume ${CHANGE} --answer "…"`);
    expect(fingerprint(w)).toBe(before);
    expect(w.userFilesChanged()).toEqual([]);

    // Answered: the next attempt fails once, the one after completes: both were told.
    w.scenario({
      '2-1': [{ signal: 'FAILED: almost' }],
      '2-2': succeed('src/two.txt', 'two\n'),
    });
    const resumed = await w.loop('resume', ['--answer', ANSWER]);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    const attempts = prompts(w, '2', 1);
    // The blocked attempt's prompt had no answer yet; the one after the answer has it.
    expect(attempts).toHaveLength(2);
    expect(attempts[0]).not.toContain('## Answer to your question');
    expectAnswered(attempts[1], ANSWER);
    expectAnswered(prompts(w, '2', 2)[0], ANSWER);
    expect(w.state()).toMatchObject({ status: 'finished', outcome: 'complete', question: null });
    expect(w.subjects(`main..${w.branch}`)).toEqual([
      'initial state',
      'checkpoint: 1',
      'checkpoint: 2',
    ]);
    expect(w.userFilesChanged()).toEqual([]);
  });

  it('--answer on a run that asks no question is refused (exit 2), nothing changed', async () => {
    world = new FaultWorld(CHANGE, 1).scenario({ '1-1': [{ signal: 'FAILED: no idea' }] });
    const w = world;
    const kept = await w.loop('run', ['--max-retries', '0']);
    expect(kept.exitCode, kept.stderr).toBe(3);
    const before = fingerprint(w);
    const refused = await w.loop('resume', ['--answer', ANSWER]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toContain('asks no question');
    expect(refused.stderr).toContain(`ralphtool resume ${CHANGE}`);
    expect(fingerprint(w)).toBe(before);
    expect(w.userFilesChanged()).toEqual([]);
  });

  it('finish --cleanup of a blocked run works as for any run: back on main, the work uncommitted', async () => {
    world = askingWorld();
    const w = world;
    expect((await w.loop('run')).exitCode).toBe(4);
    const finished = await w.cli(['finish', CHANGE, '--cleanup']);
    expect(finished.exitCode, finished.stderr).toBe(0);
    expect(w.git('branch', '--show-current').trim()).toBe('main');
    expect(w.read('src/one.txt')).toBe('one\n');
    expect(w.exists('src/half.txt')).toBe(false);
    expect(w.state()).toMatchObject({ status: 'finished', choice: 'cleanup' });
    expect(w.userFilesChanged()).toEqual([]);
    const status = await w.statusJson();
    expect(status.runs[0]).toMatchObject({ state: 'finished', question: null });
  });

  it('kill -9 right after the question, or while the answered attempt runs: the question and the answer survive', async () => {
    world = askingWorld();
    const w = world;
    expect((await w.loop('run')).exitCode).toBe(4);
    // What a kill -9 after the question was recorded and before the run was released leaves.
    w.writeState({ ...w.state(), pid: deadPid(), outcome: null });
    const status = await w.statusJson();
    expect(status.runs[0]).toMatchObject({ question: { storyId: '2', text: QUESTION } });
    expect((await w.loop('resume')).exitCode).toBe(2);

    // The answer from a file (trimmed); the answered attempt is killed with ralphtool.
    const answerFile = path.join(w.scratch, 'answer.txt');
    writeFileSync(answerFile, `${ANSWER}\n\nAnd keep it small.\n`);
    const fullAnswer = `${ANSWER}\n\nAnd keep it small.`;
    w.scenario({
      '2-1': [{ say: 'working with the answer' }, { hang: true, withChild: true }],
    });
    const live = w.spawn('resume', ['--answer-file', answerFile]);
    await live.waitFor((e) => e.type === 'agent.message' && e.text === 'working with the answer');
    await live.kill9();
    const crashed = w.state();
    expect(crashed).toMatchObject({ question: { storyId: '2', answer: fullAnswer } });
    const pgid = crashed.agentPgid as number;
    w.strayGroups.push(pgid);
    killGroup(pgid);
    expect(await eventually(() => groupMembers(pgid).length === 0)).toBe(true);

    // resume needs no answer again: the recorded one goes into the prompt.
    // The killed attempt counted (attempts are counted before the agent starts): this is 2.
    w.scenario({ '2-2': succeed('src/two.txt', 'two\n') });
    const resumed = await w.loop('resume');
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    const last = prompts(w, '2', 2).at(-1);
    expectAnswered(last, 'And keep it small.');
    expect(last).toContain(ANSWER);
    expect(w.state()).toMatchObject({ status: 'finished', outcome: 'complete', question: null });
    expect(w.userFilesChanged()).toEqual([]);
  });
});
