// Reading the scripted Responses API's requests as ralphtool's attempts: each attempt is one
// `codex exec`, so one conversation whose user message holds ralphtool's prompt.
import {
  startResponsesServer,
  type ResponsesServer,
  type ResponsesStep,
} from '../support/responses-server.js';

/** The steps of each attempt, keyed `<story>-<attempt>`, one per request of its conversation. */
export type Plans = Record<string, ResponsesStep[]>;

/** Which attempt a request belongs to, from the prompt's `# Working on Story <id>` and `attempt N of M`. */
export function attemptOf(prompt: string): string | null {
  const story = /^# Working on Story (\S+): /m.exec(prompt)?.[1];
  const attempt = /attempt (\d+) of \d+/.exec(prompt)?.[1];
  return story && attempt ? `${story}-${attempt}` : null;
}

/** The first prompt the model saw for each attempt, keyed `<story>-<attempt>`. */
export function promptsSeen(server: ResponsesServer): Map<string, string> {
  const prompts = new Map<string, string>();
  for (const request of server.requests) {
    const input = (request.body as { input?: { role?: string; content?: { text?: string }[] }[] })
      .input;
    const text = (input ?? [])
      .filter((m) => m.role === 'user')
      .map((m) => (m.content ?? []).map((c) => c.text ?? '').join('\n'))
      .find((t) => attemptOf(t) !== null);
    const key = text === undefined ? null : attemptOf(text);
    if (key !== null && text !== undefined && !prompts.has(key)) prompts.set(key, text);
  }
  return prompts;
}

/** A server answering each request from the plan of the attempt it belongs to. */
export function serveByAttempt(plans: Plans): Promise<ResponsesServer> {
  return startResponsesServer(({ prompt, step }) => {
    const key = attemptOf(prompt);
    if (key === null) throw new Error('a request without a ralphtool prompt');
    const plan = plans[key];
    if (!plan) throw new Error(`no plan for attempt ${key}`);
    return plan[step];
  });
}

/** Ticks tasks through Codex's shell tool, as a model would. */
export const tick = (tasks: string, ...ids: string[]): ResponsesStep => ({
  shell: ids
    .map((id) => `sed -i 's/^- \\[ \\] ${id.replace('.', '\\.')} /- [x] ${id} /' ${tasks}`)
    .join(' && '),
});
export const complete = (note: string): ResponsesStep => ({
  text: `${note}\n\n<promise>COMPLETE</promise>`,
});
