// The fake agent's scenario steps and output formats, in one place for both of its bodies:
// the executable (test/fixtures/agents/fake-agent.mjs, a real process) and the in-process
// scripted backend of the loop harness (test/support/loop-harness.ts). One scenario therefore
// does the same thing in both; only what a body is (a process or a function) differs, and that
// part is the caller's: stdout, stderr, exiting, being killed, hanging, ignoring SIGTERM.
// The step format is described at the top of fake-agent.mjs.
import { execFileSync, spawn } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The steps of one attempt: `<story>-<attempt>#<run>` (the run-th start of that attempt, for an
 * attempt tried again without being counted: a usage limit), else `<story>-<attempt>`, else
 * `<story>-*`, else `*`.
 */
export function stepsFor(scenario, story, attempt, run = 1) {
  return (
    scenario[`${story}-${attempt}#${run}`] ??
    scenario[`${story}-${attempt}`] ??
    scenario[`${story}-*`] ??
    scenario['*']
  );
}

/**
 * Writes prompt-<key>.md (appended) and invocation-<key>.json into the log folder; returns how
 * many times this key has started (1 the first time), counted in runs-<key>.
 */
export function recordInvocation(logDir, key, invocation) {
  mkdirSync(logDir, { recursive: true });
  appendFileSync(join(logDir, `runs-${key}`), '.');
  const run = readFileSync(join(logDir, `runs-${key}`), 'utf8').length;
  appendFileSync(join(logDir, `prompt-${key}.md`), invocation.prompt);
  const promptFile = invocation.promptFile;
  writeFileSync(
    join(logDir, `invocation-${key}.json`),
    JSON.stringify({
      argv: invocation.argv,
      cwd: invocation.cwd,
      env: Object.fromEntries(
        Object.entries(invocation.env).filter(([k]) => k.startsWith('RALPHTOOL_')),
      ),
      promptFileContent:
        promptFile && existsSync(promptFile) ? readFileSync(promptFile, 'utf8') : null,
    }),
  );
  return run;
}

/**
 * Plays the scenario's steps for `agent.story`/`agent.attempt` and says how the agent ended:
 * `done` (the steps ran out), `exit` (code), `kill` (signal), `hang` (withChild), or
 * `interrupted` (agent.interrupted() turned true between two steps).
 */
export async function runScenario(scenario, agent) {
  const key = `${agent.story}-${agent.attempt}`;
  const steps = stepsFor(scenario, agent.story, agent.attempt, agent.run ?? 1);
  if (!Array.isArray(steps)) {
    agent.stderr(`fake-agent: the scenario has no steps for ${key}, ${agent.story}-* or *\n`);
    return { end: 'exit', code: 2 };
  }
  const out = createEmitter(agent);
  if (out === null) {
    agent.stderr(`fake-agent: unknown FAKE_AGENT_FORMAT ${agent.format}\n`);
    return { end: 'exit', code: 2 };
  }
  out.start();
  for (const step of steps) {
    if (agent.interrupted()) return { end: 'interrupted' };
    if (step.exit !== undefined) {
      out.end();
      return { end: 'exit', code: step.exit };
    }
    if (step.kill !== undefined) return { end: 'kill', signal: step.kill };
    if (step.hang) return { end: 'hang', withChild: step.withChild === true };
    if (!(await perform(step, agent, out))) {
      agent.stderr(`fake-agent: unknown action ${JSON.stringify(step)}\n`);
      return { end: 'exit', code: 2 };
    }
    if (out.overBudget()) {
      // As Claude Code at --max-budget-usd: it stops at once, the result says so, exit 1.
      out.end();
      return { end: 'exit', code: 1 };
    }
  }
  out.end();
  return { end: 'done' };
}

/** Performs one step that does not end the agent; false for an unknown one. */
async function perform(step, agent, out) {
  const at = (file) => resolve(agent.cwd, file);
  if (step.write !== undefined) {
    mkdirSync(dirname(at(step.write)), { recursive: true });
    writeFileSync(at(step.write), step.content ?? '');
    out.tool('Write', { file_path: step.write, content: step.content ?? '' }, 'File written');
  } else if (step.append !== undefined) {
    mkdirSync(dirname(at(step.append)), { recursive: true });
    appendFileSync(at(step.append), step.content ?? '');
    out.tool('Edit', { file_path: step.append }, 'File updated');
  } else if (step.delete !== undefined) {
    rmSync(at(step.delete), { recursive: true, force: true });
    out.tool('Bash', { command: `rm -rf ${step.delete}` }, '');
  } else if (step.mkdir !== undefined) {
    mkdirSync(at(step.mkdir), { recursive: true });
    out.tool('Bash', { command: `mkdir -p ${step.mkdir}` }, '');
  } else if (step.tick !== undefined) {
    const path = join('openspec', 'changes', agent.change, 'tasks.md');
    writeFileSync(at(path), tickTasks(readFileSync(at(path), 'utf8'), step.tick, agent.story));
    out.tool('Edit', { file_path: path }, 'Tasks ticked');
  } else if (step.say !== undefined) {
    out.say(step.say);
  } else if (step.signal !== undefined) {
    out.say(`<promise>${step.signal}</promise>`);
  } else if (step.stderr !== undefined) {
    agent.stderr(`${step.stderr}\n`);
  } else if (step.resetsIn !== undefined) {
    const resetsAt = new Date(Date.now() + Number(step.resetsIn)).toISOString();
    agent.stderr(`ralphtool-resets-at: ${resetsAt}\n`);
  } else if (step.raw !== undefined) {
    agent.stdout(`${step.raw}\n`);
  } else if (step.cost !== undefined) {
    out.spend(step.cost);
  } else if (step.isError !== undefined) {
    out.failWith(typeof step.isError === 'string' ? step.isError : 'fake agent error');
  } else if (step.ignoreTerm) {
    agent.ignoreTerm();
  } else if (step.sleep !== undefined) {
    await agent.sleep(step.sleep);
  } else if (step.waitFor !== undefined) {
    // Synchronises with the test (e.g. another process taking a lock): bounded, never forever.
    for (let waited = 0; !existsSync(at(step.waitFor)); waited += 20) {
      if (waited > 120_000) throw new Error(`fake-agent: ${step.waitFor} never appeared`);
      await agent.sleep(20);
    }
  } else if (step.git !== undefined) {
    let output;
    try {
      output = execFileSync('git', step.git, {
        cwd: agent.cwd,
        env: agent.env,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (error) {
      output = String(error.stderr ?? error.message);
      agent.stderr(output);
    }
    out.tool('Bash', { command: ['git', ...step.git].join(' ') }, output);
  } else if (step.flood !== undefined) {
    await flood(agent, step.flood, step.lineBytes ?? 1024);
  } else if (step.echoPrompt) {
    out.echo(agent.prompt);
  } else if (step.daemon !== undefined) {
    await startDaemon(step, at);
  } else {
    return false;
  }
  return true;
}

/**
 * Checks the boxes of the given task ids, of every task of `story` for "all", or of every task
 * of every story for "every" (an agent told to "mark all tasks done").
 */
export function tickTasks(text, which, story) {
  const wanted = (id) =>
    which === 'every' || (which === 'all' ? id.startsWith(`${story}.`) : which.includes(id));
  return text
    .split('\n')
    .map((line) => {
      const m = /^(\s*(?:[-*+]|\d+[.)])\s+\[)[ ](\]\s+)(\S+)(.*)$/.exec(line);
      if (!m) return line;
      const id = m[3].replace(/[.:]$/, '');
      return wanted(id) ? `${m[1]}x${m[2]}${m[3]}${m[4]}` : line;
    })
    .join('\n');
}

/** Writes the agent's side of the conversation in its format; null for an unknown format. */
function createEmitter(agent) {
  const session = 'fake-session';
  // What the claude format's result reports, and the --max-budget-usd it was given.
  let cost = 0.0125;
  const budget = agent.maxBudgetUsd;
  let lastText = '';
  let turns = 0;
  let error = null;
  let n = 0;
  const line = (obj) => agent.stdout(`${JSON.stringify(obj)}\n`);
  const assistant = (block) => {
    turns += 1;
    line({
      type: 'assistant',
      message: {
        id: `msg_${++n}`,
        type: 'message',
        role: 'assistant',
        model: 'fake',
        content: [block],
      },
      parent_tool_use_id: null,
      session_id: session,
    });
  };
  const item = (type, fields) => line({ type, item: { id: `item_${n++}`, ...fields } });
  const plain = {
    start() {},
    say(text) {
      lastText = text;
      agent.stdout(`${text}\n`);
    },
    tool() {},
    echo(text) {
      agent.stdout(text.endsWith('\n') ? text : `${text}\n`);
    },
    failWith(message) {
      error = message;
    },
    spend() {},
    overBudget: () => false,
    end() {},
  };
  if (agent.format === 'plain') return plain;
  if (agent.format === 'claude') {
    return {
      ...plain,
      start() {
        line({
          type: 'system',
          subtype: 'init',
          cwd: agent.cwd,
          session_id: session,
          model: 'fake',
        });
      },
      say(text) {
        lastText = text;
        assistant({ type: 'text', text });
      },
      tool(name, input, result) {
        const id = `toolu_${n + 1}`;
        assistant({ type: 'tool_use', id, name, input });
        line({
          type: 'user',
          message: {
            role: 'user',
            content: [{ tool_use_id: id, type: 'tool_result', content: result }],
          },
          parent_tool_use_id: null,
          session_id: session,
        });
      },
      echo(text) {
        this.tool('Read', { file_path: agent.promptFile ?? 'prompt.md' }, text);
      },
      spend(usd) {
        cost = usd;
      },
      overBudget: () => budget !== undefined && cost > budget,
      end() {
        // Claude Code 2.1's own result at --max-budget-usd: no `result` text, the reason in errors.
        const over = budget !== undefined && cost > budget;
        line({
          type: 'result',
          subtype: over ? 'error_max_budget_usd' : 'success',
          is_error: over || error !== null,
          duration_ms: 1234,
          duration_api_ms: 1000,
          num_turns: turns,
          ...(over
            ? { errors: [`Reached maximum budget ($${budget})`] }
            : { result: error ?? lastText }),
          session_id: session,
          total_cost_usd: cost,
          usage: {
            input_tokens: 1200,
            cache_creation_input_tokens: 300,
            cache_read_input_tokens: 4500,
            output_tokens: 250,
          },
        });
      },
    };
  }
  if (agent.format === 'codex') {
    return {
      ...plain,
      start() {
        line({ type: 'thread.started', thread_id: 'fake-thread' });
        line({ type: 'turn.started' });
      },
      say(text) {
        lastText = text;
        item('item.completed', { type: 'agent_message', text });
      },
      tool(name, input, result) {
        if (input.file_path !== undefined) {
          const changes = [{ path: input.file_path, kind: name === 'Write' ? 'add' : 'update' }];
          item('item.completed', { type: 'file_change', changes, status: 'completed' });
          return;
        }
        const id = `item_${n++}`;
        const command = input.command ?? name;
        line({
          type: 'item.started',
          item: { id, type: 'command_execution', command, status: 'in_progress' },
        });
        line({
          type: 'item.completed',
          item: {
            id,
            type: 'command_execution',
            command,
            aggregated_output: result,
            exit_code: 0,
            status: 'completed',
          },
        });
      },
      echo(text) {
        this.tool('Bash', { command: 'cat "$RALPHTOOL_PROMPT_FILE"' }, text);
      },
      end() {
        if (error !== null) line({ type: 'turn.failed', error: { message: error } });
        else
          line({
            type: 'turn.completed',
            usage: { input_tokens: 1200, cached_input_tokens: 200, output_tokens: 300 },
          });
      },
    };
  }
  return null;
}

/** `bytes` of output in lines of `lineBytes`, waiting for stdout whenever it is backed up. */
async function flood(agent, bytes, lineBytes) {
  const lineText = `${'x'.repeat(Math.max(0, lineBytes - 1))}\n`;
  for (let sent = 0; sent < bytes; sent += lineText.length) {
    if (!agent.stdout(lineText)) await agent.drained();
  }
}

/**
 * A process the agent leaves behind, the ways real agents do (a dev server, a file watcher):
 * `setsid` (its own session and group), `nohup` (in the agent's group, SIGHUP ignored),
 * `doubleFork` (a child that starts it in a session of its own, then exits at once, so its
 * parent is gone) or `group` (a plain background child). It writes its pid to `pidFile`, and
 * the step returns once it has; `holdOutput` keeps the agent's stdout/stderr open in it,
 * `writes` appends a line to that file every `everyMs` (default 50), from the start or with
 * `afterExit` only once the agent itself is gone; `stubborn` makes it ignore SIGTERM.
 */
async function startDaemon(step, at) {
  const pidFile = at(step.pidFile);
  const body = `
    const fs = require('node:fs');
    const [pidFile, writes, everyMs, afterExit, ignoreTerm, agentPid] = process.argv.slice(1);
    if (ignoreTerm === '1') process.on('SIGTERM', () => {});
    // Written whole, then renamed: a reader that sees the file never reads it empty.
    fs.writeFileSync(pidFile + '.tmp', String(process.pid));
    fs.renameSync(pidFile + '.tmp', pidFile);
    const agentGone = () => { try { process.kill(Number(agentPid), 0); return false; } catch { return true; } };
    let n = 0;
    setInterval(() => {
      if (writes && (afterExit !== '1' || agentGone())) fs.appendFileSync(writes, 'late write ' + ++n + '\\n');
    }, Number(everyMs));`;
  const daemonArgs = [
    '-e',
    body,
    pidFile,
    step.writes === undefined ? '' : at(step.writes),
    String(step.everyMs ?? 50),
    step.afterExit ? '1' : '0',
    step.stubborn ? '1' : '0',
    String(process.pid),
  ];
  const stdio = step.holdOutput ? ['ignore', 'inherit', 'inherit'] : 'ignore';
  if (step.daemon === 'setsid') {
    spawn(process.execPath, daemonArgs, { stdio, detached: true }).unref();
  } else if (step.daemon === 'nohup') {
    spawn('nohup', [process.execPath, ...daemonArgs], { stdio }).unref();
  } else if (step.daemon === 'doubleFork') {
    const starter = `require('node:child_process').spawn(process.execPath, ${JSON.stringify(daemonArgs)}, { stdio: ${JSON.stringify(stdio)}, detached: true }).unref();`;
    spawn(process.execPath, ['-e', starter], { stdio }).unref();
  } else {
    spawn(process.execPath, daemonArgs, { stdio }).unref();
  }
  for (let waited = 0; !existsSync(pidFile) && waited < 30_000; waited += 20) {
    await sleep(20);
  }
}
