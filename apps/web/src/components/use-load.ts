import { useCallback, useEffect, useState } from 'react';

export interface Loaded<T> {
  data?: T;
  error?: unknown;
  loading: boolean;
  reload(): void;
}

/** Loads on mount and whenever `deps` change; `reload()` loads again; a stale answer is dropped. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    let current = true;
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (data) => current && setState({ data, loading: false }),
      (error: unknown) => current && setState((previous) => ({ data: previous.data, error, loading: false })),
    );
    return () => {
      current = false;
    };
    // The caller names what the load depends on (`deps`), like useEffect.
  }, [...deps, generation]);
  const reload = useCallback(() => setGeneration((value) => value + 1), []);
  return { ...state, reload };
}

/** Calls `tick` every `ms` while `active`. */
export function useInterval(tick: () => void, ms: number, active = true): void {
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(tick, ms);
    return () => clearInterval(timer);
  }, [tick, ms, active]);
}
