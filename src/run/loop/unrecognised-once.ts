import type { RunEvent } from '../../core/events.js';

/**
 * The run's emit with every `agent.unrecognised` after the first of its kind (`what`) left out:
 * a newer agent prints its new lines in every attempt, the user needs to hear of each kind once.
 */
export function unrecognisedOnce(emit: (event: RunEvent) => void): (event: RunEvent) => void {
  const said = new Set<string>();
  return (event) => {
    if (event.type === 'agent.unrecognised') {
      if (said.has(event.what)) return;
      said.add(event.what);
    }
    emit(event);
  };
}
