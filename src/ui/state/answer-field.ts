import { newRun, type Transition, type UiState } from './app-state.js';
import type { InkKey } from './key-names.js';

// The answer to a blocked run's question, typed on the change list (r on a change marked
// blocked): the one place the UI takes text. Enter resumes the run with it, as
// `ralphtool resume <change> --answer "…"` does; Esc puts it away. Pure.

/** The answer being typed: for which change, and what so far. */
export interface AnswerField {
  change: string;
  text: string;
}

/** Long enough for a decision, short enough for one line of a prompt's heading. */
export const MAX_ANSWER_CHARS = 2000;

/** r on a change whose run is blocked on a question: the field opens, empty. */
export function openAnswer(state: UiState, change: string): Transition {
  return {
    state: {
      ...state,
      recorded: {
        ...state.recorded,
        confirming: null,
        notice: null,
        answering: { change, text: '' },
      },
    },
    effects: [],
  };
}

/**
 * One input event while the field is open: text is added (control characters dropped, a
 * pasted line break made a space), Backspace takes the last character back, Enter resumes
 * with the answer (not with an empty one), Esc closes the field. Null for Ctrl-C, which the
 * keys of the screen handle as ever.
 */
export function typeAnswer(
  state: UiState,
  input: string,
  key: InkKey & { backspace?: boolean; delete?: boolean; meta?: boolean },
): Transition | null {
  const field = state.recorded.answering;
  if (field === null) return null;
  if (key.ctrl && input === 'c') return null;
  const withField = (next: AnswerField | null): UiState => ({
    ...state,
    recorded: { ...state.recorded, answering: next },
  });
  if (key.escape) return { state: withField(null), effects: [] };
  if (key.return) {
    const answer = field.text.trim();
    if (answer === '') return { state, effects: [] };
    return {
      state: { ...withField(null), screen: 'loop', run: newRun(field.change, null) },
      effects: [{ type: 'resume-run', change: field.change, answer }],
    };
  }
  if (key.backspace === true || key.delete === true) {
    return {
      state: withField({ ...field, text: [...field.text].slice(0, -1).join('') }),
      effects: [],
    };
  }
  if (key.ctrl || key.meta === true || key.tab || key.upArrow || key.downArrow) {
    return { state, effects: [] };
  }
  const typed = input.replace(/[\r\n\t]+/g, ' ').replace(/[\p{Cc}\p{Cf}]/gu, '');
  const text = (field.text + typed).slice(0, MAX_ANSWER_CHARS);
  return { state: withField({ ...field, text }), effects: [] };
}

/** The hint bar while the field is open: the answer so far, with a cursor, and the keys. */
export function answerHint(field: AnswerField): string {
  return `answer for ${field.change}: ${field.text}▏ · Enter resumes with it · Esc cancels`;
}
