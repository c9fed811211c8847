/**
 * What was read of each key, kept for at most `freshForMs` of real time, so that a hot path does
 * not read the store for it every time: the bound is how stale a use may be. Real monotonic time,
 * not the context's clock, which tests may stop. Concurrent misses of one key share one read; a
 * failed read, or a value `keep` refuses, is not kept. At most `maximumKeys`, the oldest out first.
 */
export interface TtlCache<V> {
  read(key: string, load: () => Promise<V>): Promise<V>
  forget(key: string): void
  /** Nothing kept may be used again. */
  forgetAll(): void
}

export function createTtlCache<V>(
  freshForMs: number,
  keep: (value: V) => boolean,
  maximumKeys = 10_000,
): TtlCache<V> {
  const kept = new Map<string, { readAtMs: number; value: Promise<V> }>()
  return {
    read(key, load) {
      const now = performance.now()
      const entry = kept.get(key)
      if (entry && now - entry.readAtMs < freshForMs) return entry.value
      kept.delete(key)
      const value = load()
      if (kept.size >= maximumKeys) kept.delete(kept.keys().next().value as string)
      kept.set(key, { readAtMs: now, value })
      const drop = () => {
        if (kept.get(key)?.value === value) kept.delete(key)
      }
      value.then((found) => keep(found) || drop(), drop)
      return value
    },
    forget: (key) => {
      kept.delete(key)
    },
    forgetAll: () => kept.clear(),
  }
}
