/**
 * One request's state for a component: data, error, loading, and reload. The panel talks to an
 * agent server through the SDK client it is given, not the console's API client, so it keeps its
 * own small loader instead of depending on the console's query cache.
 */
import { useCallback, useEffect, useRef, useState } from "react";

export interface Loaded<T> {
  data?: T;
  error?: unknown;
  loading: boolean;
  reload: () => void;
}

export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => {
    const ctl = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    loadRef.current(ctl.signal).then(
      (data) => !ctl.signal.aborted && setState({ data, loading: false }),
      (error: unknown) => !ctl.signal.aborted && setState({ error, loading: false }),
    );
    return () => ctl.abort();
  }, [...deps, tick]); // the caller lists what `load` depends on, as with useEffect
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}

export const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));
