/**
 * Deterministic draws: one small seeded stream per (sandbox seed, key), so the same seed and key give
 * the same sequence of delays and fault decisions, whatever other keys do meanwhile. mulberry32 (a
 * 32-bit counter through a mixing function) is fast enough to run on every request; its 2^32 period
 * is far beyond any test run. The stream is seeded from a 32-bit hash of `seed:key` (FNV-1a, then
 * MurmurHash3's finaliser to spread nearby keys apart).
 */

/** Uniform draws in [0, 1). */
export interface Draws {
  next(): number;
}

function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The stream for one key under one seed: the same arguments always give the same sequence. */
export function drawStream(seed: number, key: string): Draws {
  let state = hash32(`${seed}:${key}`);
  return {
    next(): number {
      state = (state + 0x6d2b79f5) | 0;
      let t = Math.imul(state ^ (state >>> 15), state | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    },
  };
}

/** The streams of one sandbox, one per key, each created on its first draw. */
export interface DrawStreams {
  /** The key's stream (for anonymous callers, pass a stable stand-in such as the client address). */
  stream(key: string): Draws;
  /** Every stream back to its start (the sandbox's reset). */
  reset(): void;
}

/**
 * At most `maxKeys` streams are kept (anonymous callers are keyed by address, so the set is open):
 * past that the oldest is dropped and starts again from its beginning if its key comes back.
 */
export function createDrawStreams(seed: number, maxKeys = 10_000): DrawStreams {
  const streams = new Map<string, Draws>();
  return {
    stream(key) {
      let found = streams.get(key);
      if (found === undefined) {
        if (streams.size >= maxKeys) {
          const oldest = streams.keys().next();
          if (oldest.done !== true) streams.delete(oldest.value);
        }
        found = drawStream(seed, key);
        streams.set(key, found);
      }
      return found;
    },
    reset() {
      streams.clear();
    },
  };
}
