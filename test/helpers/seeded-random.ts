/**
 * The tests' seeded generator: mulberry32 from `bench/seeded-random.mjs`, the one the benchmarks
 * use too, so a failure names a seed that replays it. Takes a 32-bit seed; returns a function
 * giving numbers in [0, 1).
 */
import * as path from "node:path";
import { pathToFileURL } from "node:url";

const generator = (await import(pathToFileURL(path.resolve(import.meta.dirname, "../../bench/seeded-random.mjs")).href)) as { seededRandom(seed: number): () => number };

export const seededRandom: (seed: number) => () => number = generator.seededRandom;
