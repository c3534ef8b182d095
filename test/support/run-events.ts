/**
 * Questions about a run's event stream, for the NDJSON a spawned ralphtool printed
 * (`{ type: string, … }`) and for the typed RunEvents the loop harness collected alike.
 */
interface AnyEvent {
  type: string;
}

/** The events of `type`: the matching member of a typed union, or the loose JSON shape itself. */
export type EventOf<E extends AnyEvent, T extends string> = E extends { type: infer K }
  ? string extends K
    ? E
    : K extends T
      ? E
      : never
  : never;

/** Event types in order, without the agent's own chatter. */
export function loopTypes(events: readonly AnyEvent[]): string[] {
  return events
    .map((e) => e.type)
    .filter((t) => t !== 'agent.message' && t !== 'agent.tool' && t !== 'agent.result');
}

export function ofType<E extends AnyEvent, T extends E['type']>(
  events: readonly E[],
  type: T,
): EventOf<E, T>[] {
  // The filter keeps exactly the members whose `type` is T, which is what EventOf names.
  return events.filter((e) => e.type === type) as EventOf<E, T>[];
}

/** The one event of a type; throws when there is not exactly one. */
export function single<E extends AnyEvent, T extends E['type']>(
  events: readonly E[],
  type: T,
): EventOf<E, T> {
  const found = ofType(events, type);
  const [first] = found;
  if (found.length !== 1 || first === undefined) {
    throw new Error(`expected one ${type} event, got ${found.length}: ${JSON.stringify(events)}`);
  }
  return first;
}
