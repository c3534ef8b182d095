import { useCallback, useEffect, useRef } from 'react';

/**
 * Collects items and hands them over in batches at most once per `intervalMs`,
 * so a flood of agent output costs one render per interval, not one per line.
 */
export function useBatched<T>(
  apply: (batch: T[]) => void,
  intervalMs: number,
): { push: (item: T) => void; flush: () => void } {
  const queue = useRef<T[]>([]);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const applyRef = useRef(apply);
  applyRef.current = apply;

  const flush = useCallback(() => {
    if (timer.current !== null) clearTimeout(timer.current);
    timer.current = null;
    if (queue.current.length === 0) return;
    const batch = queue.current;
    queue.current = [];
    applyRef.current(batch);
  }, []);

  const push = useCallback(
    (item: T) => {
      queue.current.push(item);
      timer.current ??= setTimeout(flush, intervalMs);
    },
    [flush, intervalMs],
  );

  useEffect(
    () => () => {
      if (timer.current !== null) clearTimeout(timer.current);
      timer.current = null;
    },
    [],
  );
  return { push, flush };
}
