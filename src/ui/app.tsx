import { useApp, useInput, useStdout } from 'ink';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { TimedRunEvent } from '../core/events.js';
import type { RunHandle, UiController } from './controller.js';
import { FrameView } from './screens/frame-view.js';
import { TooSmall } from './screens/too-small.js';
import {
  changeOpened,
  changesLoaded,
  initialState,
  resultLoaded,
  runChangeRefreshed,
  runEnded,
  runEventsArrived,
  type Effect,
  type Transition,
  type UiState,
} from './state/app-state.js';
import { attentionKey, BELL } from './state/attention.js';
import { typeAnswer } from './state/answer-field.js';
import { toUiKeys } from './state/key-names.js';
import { finishEnded, marksLoaded } from './state/recorded-runs.js';
import { dashboardChangeRead } from './state/dashboard.js';
import { useManyRuns } from './use-many-runs.js';
import type { KeyContext } from './state/keys.js';
import { pressKey, replayTypeAhead } from './state/type-ahead.js';
import { DEFAULT_MAX_TRANSCRIPT_LINES } from './state/transcript.js';
import { useBatched } from './use-batched-events.js';
import { useTerminalSize } from './use-terminal-size.js';
import { isTooSmall } from './view/frame.js';
import { paneOf, screenFrame, type FrameContext } from './view/screen-frame.js';
import { userMessageOf } from '../core/error-details.js';

export interface AppProps {
  controller: UiController;
  /** Clock in ms; tests pass their own. */
  now?: () => number;
  /** Transcript lines kept per story in the view (older ones stay on disk). */
  maxTranscriptLines?: number | undefined;
  /** Longest wait before queued run events are drawn. */
  batchMs?: number;
  /** Told the exit code when the user leaves. */
  onExit?: (code: number) => void;
}

/**
 * The interactive UI: draws the current screen's frame and turns keys and run
 * events into state transitions; their effects go to the controller.
 */
export function App({
  controller,
  now = Date.now,
  maxTranscriptLines = DEFAULT_MAX_TRANSCRIPT_LINES,
  batchMs = 60,
  onExit,
}: AppProps) {
  const { exit } = useApp();
  const size = useTerminalSize();
  const [boot] = useState(() => initialState(maxTranscriptLines));
  const [state, setState] = useState<UiState>(boot.state);
  const stateRef = useRef(state);
  const sizeRef = useRef(size);
  sizeRef.current = size;
  const handleRef = useRef<RunHandle | null>(null);
  const runIdRef = useRef(0);
  const [, setTick] = useState(0);

  const ctx: FrameContext = {
    options: controller.runOptions,
    transcriptsDir: handleRef.current?.transcriptsDir ?? null,
  };
  const ctxRef = useRef(ctx);
  ctxRef.current = ctx;

  const runEffectRef = useRef<(effect: Effect) => void>(() => undefined);

  const transition = useCallback((step: (s: UiState) => Transition) => {
    const t = step(stateRef.current);
    stateRef.current = t.state;
    setState(t.state);
    for (const effect of t.effects) runEffectRef.current(effect);
  }, []);
  const update = useCallback(
    (step: (s: UiState) => UiState) => transition((s) => ({ state: step(s), effects: [] })),
    [transition],
  );

  /** What a key acts on: the scrollable pane of the frame this state draws now. */
  const keyContext = useCallback(
    (s: UiState): KeyContext => {
      const at = now();
      const frame = screenFrame(s, sizeRef.current, at, ctxRef.current);
      return { now: at, pane: paneOf(frame), rowMap: frame.rowMap };
    },
    [now],
  );
  /** A screen's data arrived: apply it, then the keys typed while it loaded. */
  const loaded = useCallback(
    (step: (s: UiState) => UiState) => transition((s) => replayTypeAhead(step(s), keyContext)),
    [transition, keyContext],
  );

  const events = useBatched<TimedRunEvent>((batch) => {
    transition((s) => runEventsArrived(s, batch));
  }, batchMs);

  // Several runs started together from the list (the dashboard); at most one set at a time.
  const many = useManyRuns(controller, batchMs, transition);
  const manyRef = many.handle;

  runEffectRef.current = (effect: Effect): void => {
    switch (effect.type) {
      case 'load-changes':
        controller.listChanges().then(
          (value) => loaded((s) => changesLoaded(s, { status: 'ready', value })),
          (error: unknown) =>
            loaded((s) => changesLoaded(s, { status: 'error', message: userMessageOf(error) })),
        );
        // The marks are extra: a record that cannot be read marks nothing (status says why).
        controller.recordedRuns().then(
          (marks) => update((s) => marksLoaded(s, marks)),
          () => undefined,
        );
        return;
      case 'resume-run':
        startRun(effect.change, 'resume', effect.answer);
        return;
      case 'finish-run':
        controller.finishRun(effect.change, effect.choice).then(
          (message) => transition((s) => finishEnded(s, { message, ok: true })),
          (error: unknown) =>
            transition((s) => finishEnded(s, { message: userMessageOf(error), ok: false })),
        );
        return;
      case 'open-change':
        controller.readChange(effect.name).then(
          (value) => loaded((s) => changeOpened(s, effect.name, { status: 'ready', value })),
          (error: unknown) =>
            loaded((s) =>
              changeOpened(s, effect.name, { status: 'error', message: userMessageOf(error) }),
            ),
        );
        return;
      case 'start-run':
        startRun(effect.change);
        return;
      case 'stop':
        (manyRef.current ?? handleRef.current)?.stop();
        return;
      case 'force-quit':
        (manyRef.current ?? handleRef.current)?.forceQuit();
        return;
      case 'start-runs':
        many.start(effect.changes);
        return;
      case 'choose-for':
        manyRef.current?.choose(effect.change, effect.choice);
        return;
      case 'choose-all':
        manyRef.current?.chooseAll(effect.choice);
        return;
      case 'read-run-change':
        // A tasks.md that cannot be read mid-run keeps the last good read on screen.
        controller.readChange(effect.change, effect.root ?? undefined).then(
          (change) => update((s) => dashboardChangeRead(s, effect.change, change)),
          () => undefined,
        );
        return;
      case 'choose':
        handleRef.current?.choose(effect.choice);
        return;
      case 'refresh-change':
        // A tasks.md that cannot be read mid-run keeps the last good read on screen.
        controller.readChange(effect.name).then(
          (change) => update((s) => runChangeRefreshed(s, change)),
          () => undefined,
        );
        return;
      case 'load-result':
        controller.changedFiles(effect.run).then(
          (value) => update((s) => resultLoaded(s, { files: { status: 'ready', value } })),
          (error: unknown) =>
            update((s) =>
              resultLoaded(s, { files: { status: 'error', message: userMessageOf(error) } }),
            ),
        );
        controller.readChange(effect.run.change).then(
          (value) => update((s) => resultLoaded(s, { change: { status: 'ready', value } })),
          (error: unknown) =>
            update((s) =>
              resultLoaded(s, { change: { status: 'error', message: userMessageOf(error) } }),
            ),
        );
        return;
      case 'exit':
        onExit?.(effect.code);
        exit();
        return;
    }
  };

  function startRun(change: string, mode: 'start' | 'resume' = 'start', answer?: string): void {
    const runId = ++runIdRef.current;
    const current = (): boolean => runIdRef.current === runId;
    try {
      const handle = controller.startRun(
        change,
        (event) => {
          if (current()) events.push(event);
        },
        mode,
        answer,
      );
      handleRef.current = handle;
      handle.done.then(
        (result) => {
          if (!current()) return;
          events.flush();
          update((s) => runEnded(s, result));
        },
        (error: unknown) => {
          if (!current()) return;
          events.flush();
          update((s) => runEnded(s, { error: userMessageOf(error) }));
        },
      );
    } catch (error) {
      update((s) => runEnded(s, { error: userMessageOf(error) }));
    }
  }

  useEffect(() => {
    for (const effect of boot.effects) runEffectRef.current(effect);
  }, [boot]);

  // Elapsed time and the quit hint change with the clock while a run is live.
  const live =
    (state.run !== null && state.run.ended === null && state.run.view.finished === null) ||
    (state.dashboard !== null && state.dashboard.ended === null);
  useEffect(() => {
    if (!live) return;
    const timer = setInterval(() => setTick((n) => n + 1), 1000);
    return () => clearInterval(timer);
  }, [live]);

  // The bell, once, when the UI comes to need the user (completion choice, a question).
  const { stdout } = useStdout();
  const attention = attentionKey(state);
  const rangFor = useRef<string | null>(null);
  useEffect(() => {
    // Straight to the stream: a BEL moves no cursor, so Ink's drawing is not disturbed.
    if (attention !== null && attention !== rangFor.current) stdout.write(BELL);
    rangFor.current = attention;
  }, [attention, stdout]);

  useInput(
    useCallback(
      (input, key) => {
        // The answer to a blocked run's question takes the keys as text while it is open.
        if (stateRef.current.recorded.answering !== null && !isTooSmall(sizeRef.current)) {
          const typed = typeAnswer(stateRef.current, input, key);
          if (typed !== null) {
            transition(() => typed);
            return;
          }
        }
        for (const uiKey of toUiKeys(input, key)) {
          // Nothing is shown while the terminal is too small: only stopping and quitting act,
          // so that Enter cannot apply a choice or start a run the user cannot see.
          if (isTooSmall(sizeRef.current) && uiKey !== 'q' && uiKey !== 'ctrl-c') continue;
          transition((s) => pressKey(s, uiKey, keyContext(s)));
        }
      },
      [keyContext, transition],
    ),
  );

  if (isTooSmall(size)) return <TooSmall />;
  return <FrameView frame={screenFrame(state, size, now(), ctx)} size={size} />;
}
