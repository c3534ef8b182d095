// Reading the scripted model's requests as ralphtool's attempts: each attempt is one claude
// process, so one conversation whose first user message is ralphtool's prompt.
import type { ModelServer, Script, ScriptedError, ScriptedTurn } from '../support/model-server.js';

/** Which attempt a main-conversation request belongs to, and how far it has got. */
export interface ConversationPoint {
  storyId: string;
  attempt: number;
  /** 0 for the conversation's first request, then one more per answered assistant turn. */
  step: number;
  /** The text of the conversation's first user message (ralphtool's prompt, plus reminders). */
  prompt: string;
}

/** Finds the story and attempt from the prompt's `# Working on Story <id>: …` and `attempt N of M`. */
export function conversationPoint(body: unknown): ConversationPoint | null {
  const messages = messagesOf(body);
  const first = messages.find((m) => m.role === 'user');
  if (!first) return null;
  const prompt = textOf(first.content);
  const story = /^# Working on Story (\S+): /m.exec(prompt);
  const attempt = /attempt (\d+) of \d+/.exec(prompt);
  if (!story?.[1] || !attempt?.[1]) return null;
  return {
    storyId: story[1],
    attempt: Number(attempt[1]),
    step: messages.filter((m) => m.role === 'assistant').length,
    prompt,
  };
}

/** Turns per attempt, keyed `<story>-<attempt>`; a conversation past its turns is told `Done.` */
export type AttemptPlans = Record<string, (ScriptedTurn | ScriptedError)[]>;

/** A server script that answers each request from the plan of the attempt it belongs to. */
export function scriptByAttempt(plans: AttemptPlans): Script {
  return ({ body }) => {
    const point = conversationPoint(body);
    if (!point) throw new Error('a main request without a ralphtool prompt');
    const plan = plans[`${point.storyId}-${point.attempt}`];
    if (!plan) throw new Error(`no plan for story ${point.storyId} attempt ${point.attempt}`);
    return plan[point.step];
  };
}

/** The first prompt the model saw for each attempt, keyed `<story>-<attempt>`. */
export function promptsSeen(server: ModelServer): Map<string, string> {
  const prompts = new Map<string, string>();
  for (const request of server.requests) {
    if (request.kind !== 'main') continue;
    const point = conversationPoint(request.body);
    const key = point ? `${point.storyId}-${point.attempt}` : null;
    if (point && key && !prompts.has(key)) prompts.set(key, point.prompt);
  }
  return prompts;
}

interface Message {
  role: string;
  content: unknown;
}

function messagesOf(body: unknown): Message[] {
  if (typeof body !== 'object' || body === null || !('messages' in body)) return [];
  const { messages } = body;
  if (!Array.isArray(messages)) return [];
  return messages.filter(
    (m): m is Message => typeof m === 'object' && m !== null && 'role' in m && 'content' in m,
  );
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) =>
      typeof part === 'object' && part !== null && 'text' in part && typeof part.text === 'string'
        ? part.text
        : '',
    )
    .join('\n');
}
