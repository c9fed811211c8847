/**
 * What was read of each key, kept for at most `freshForMs` of real time, so that a hot path does
 * not read the store for it every time: the bound is how stale a use may be. Real monotonic time,
 * not the context's clock, which tests may stop. Concurrent misses of one key share one read; a
 * failed read, or a value `keep` refuses, is not kept. At most `maximumKeys`, the oldest out first.
 */
export interface TtlCache<V> {
  read(key: string, load: () => Promise<V>): Promise<V>
  /**
   * What is kept of the key now, without reading: undefined while nothing fresh is kept, or while
   * its read is still under way.
   */
  peek(key: string): V | undefined
  forget(key: string): void
  /** Nothing kept may be used again. */
  forgetAll(): void
}

interface Kept<V> {
  readAtMs: number
  value: Promise<V>
  /** The value once read: what peek answers. */
  settled?: { value: V }
}

export function createTtlCache<V>(
  freshForMs: number,
  keep: (value: V) => boolean,
  maximumKeys = 10_000,
): TtlCache<V> {
  const kept = new Map<string, Kept<V>>()
  return {
    read(key, load) {
      const now = performance.now()
      const entry = kept.get(key)
      if (entry && now - entry.readAtMs < freshForMs) return entry.value
      kept.delete(key)
      const value = load()
      if (kept.size >= maximumKeys) kept.delete(kept.keys().next().value as string)
      const fresh: Kept<V> = { readAtMs: now, value }
      kept.set(key, fresh)
      const drop = () => {
        if (kept.get(key) === fresh) kept.delete(key)
      }
      value.then((found) => {
        if (!keep(found)) return drop()
        fresh.settled = { value: found }
      }, drop)
      return value
    },
    peek(key) {
      const entry = kept.get(key)
      if (!entry || performance.now() - entry.readAtMs >= freshForMs) return undefined
      return entry.settled?.value
    },
    forget: (key) => {
      kept.delete(key)
    },
    forgetAll: () => kept.clear(),
  }
}
