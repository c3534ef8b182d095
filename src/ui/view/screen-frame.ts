import type { UiRunOptions } from '../controller.js';
import type { UiState } from '../state/app-state.js';
import type { PaneSize } from '../state/scroll.js';
import { changesFrame } from './changes-frame.js';
import { dashboardFrame } from './dashboard-frame.js';
import { completionFrame } from './completion-frame.js';
import type { Frame, Size } from './frame.js';
import { loopFrame } from './loop-frame.js';
import { previewFrame } from './preview-frame.js';
import { resultFrame } from './result-frame.js';

export interface FrameContext {
  options: UiRunOptions;
  transcriptsDir: string | null;
}

/** The frame of whichever screen is current. Pure. */
export function screenFrame(state: UiState, size: Size, now: number, ctx: FrameContext): Frame {
  switch (state.screen) {
    case 'changes':
      return changesFrame(state, size, now, ctx.options.note);
    case 'preview':
      if (state.preview) return previewFrame(state.preview, ctx.options, size);
      break;
    case 'loop':
      if (state.run) return loopFrame(state.run, size, now, ctx.transcriptsDir);
      break;
    case 'completion':
      if (state.run) return completionFrame(state.run, size, now);
      break;
    case 'result':
      if (state.run) return resultFrame(state.run, size, now);
      break;
    case 'dashboard':
      if (state.dashboard) return dashboardFrame(state.dashboard, size, now, ctx.options);
      break;
  }
  return changesFrame(state, size, now, ctx.options.note);
}

/** The scrollable pane's size, which key handling clamps against. */
export function paneOf(frame: Frame): PaneSize {
  return { total: frame.body.length, viewport: frame.height };
}
