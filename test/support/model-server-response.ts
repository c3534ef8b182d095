// Renders one scripted model turn as an Anthropic Messages API answer: the SSE event
// stream for `stream: true` requests and the JSON message otherwise. Pure: no I/O.

/** One content block the scripted model produces. */
export type ScriptedBlock =
  { text: string } | { thinking: string } | { tool: string; input: Record<string, unknown> };

/** What the model answers to one main-conversation request. */
export type ScriptedTurn = ScriptedBlock[];

/** Token counts reported for every answer (so `result` lines carry tokens and cost). */
export interface ScriptedUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

export const DEFAULT_USAGE: ScriptedUsage = {
  input_tokens: 120,
  output_tokens: 40,
  cache_read_input_tokens: 300,
  cache_creation_input_tokens: 60,
};

type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

export interface RenderedMessage {
  id: string;
  model: string;
  content: ContentBlock[];
  stopReason: 'end_turn' | 'tool_use';
  usage: ScriptedUsage;
}

/**
 * Gives every block its API shape; tool ids come from `nextToolId` so the server can later
 * match the tool_result blocks that the client sends back.
 */
export function buildMessage(
  turn: ScriptedTurn,
  ids: { messageId: string; nextToolId: () => string },
  model: string,
  usage: ScriptedUsage,
): RenderedMessage {
  const content = turn.map((block): ContentBlock => {
    if ('tool' in block) {
      return { type: 'tool_use', id: ids.nextToolId(), name: block.tool, input: block.input };
    }
    if ('thinking' in block) {
      // The client keeps the signature opaque; any non-empty string is accepted.
      return { type: 'thinking', thinking: block.thinking, signature: 'c2NyaXB0ZWQ=' };
    }
    return { type: 'text', text: block.text };
  });
  const stopReason = content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn';
  return { id: ids.messageId, model, content, stopReason, usage };
}

/** The non-streaming answer: one JSON message. */
export function messageJson(message: RenderedMessage): string {
  return JSON.stringify({
    id: message.id,
    type: 'message',
    role: 'assistant',
    model: message.model,
    content: message.content,
    stop_reason: message.stopReason,
    stop_sequence: null,
    usage: message.usage,
  });
}

/** The streaming answer: SSE events in the order the real API sends them. */
export function messageSse(message: RenderedMessage): string {
  const events: string[] = [];
  const emit = (type: string, data: Record<string, unknown>): void => {
    events.push(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  };
  emit('message_start', {
    message: {
      id: message.id,
      type: 'message',
      role: 'assistant',
      model: message.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...message.usage, output_tokens: 1 },
    },
  });
  emit('ping', {});
  message.content.forEach((block, index) => {
    for (const [type, data] of blockEvents(block, index)) emit(type, data);
  });
  emit('message_delta', {
    delta: { stop_reason: message.stopReason, stop_sequence: null },
    usage: message.usage,
  });
  emit('message_stop', {});
  return events.join('');
}

type SseEvent = [string, Record<string, unknown>];

function blockEvents(block: ContentBlock, index: number): SseEvent[] {
  const stop: SseEvent = ['content_block_stop', { index }];
  const delta = (payload: Record<string, unknown>): SseEvent => [
    'content_block_delta',
    { index, delta: payload },
  ];
  if (block.type === 'text') {
    return [
      ['content_block_start', { index, content_block: { type: 'text', text: '' } }],
      ...splitInChunks(block.text, 2).map((text) => delta({ type: 'text_delta', text })),
      stop,
    ];
  }
  if (block.type === 'thinking') {
    return [
      [
        'content_block_start',
        { index, content_block: { type: 'thinking', thinking: '', signature: '' } },
      ],
      delta({ type: 'thinking_delta', thinking: block.thinking }),
      delta({ type: 'signature_delta', signature: block.signature }),
      stop,
    ];
  }
  // Tool input arrives as partial JSON in several pieces, as the real API sends it, so the
  // client's accumulation of input_json_delta is exercised.
  return [
    [
      'content_block_start',
      { index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } },
    ],
    ...splitInChunks(JSON.stringify(block.input), 3).map((partial_json) =>
      delta({ type: 'input_json_delta', partial_json }),
    ),
    stop,
  ];
}

/** Splits text into at most `parts` non-empty pieces (one piece when it is short). */
export function splitInChunks(text: string, parts: number): string[] {
  if (text.length <= parts) return [text];
  const size = Math.ceil(text.length / parts);
  const chunks: string[] = [];
  for (let start = 0; start < text.length; start += size)
    chunks.push(text.slice(start, start + size));
  return chunks;
}
