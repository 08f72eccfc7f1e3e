/**
 * mulberry32: a small, fast, deterministic generator, the one the benchmarks (`search.mjs`'s
 * generated catalogue) and the tests that generate their inputs (`test/helpers/seeded-random.ts`)
 * share, so a figure or a failure names a seed that replays it.
 * @param {number} seed a 32-bit seed.
 * @returns {() => number} numbers in [0, 1).
 */
export function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
