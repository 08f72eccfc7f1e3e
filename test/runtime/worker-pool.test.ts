/**
 * When the warm pool spawns a child (issue 14 item 3: options given at once spawn it in the
 * caller's turn, so it boots while the caller checks the input), and its least-recently-used order (issue 4 item 4: idle workers beyond `maxWorkers`
 * are closed, least recently used first), kept while `warm` skips re-ordering a worker that is
 * already the most recently used (issue 14 item 2: every call of a run in a row).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { SandboxWorker, type WorkerOptions } from "../../runtime-min/sandbox/sandbox-worker.js";
import { WorkerPool } from "../../runtime-min/sandbox/worker-pool.js";

afterEach(() => {
  vi.restoreAllMocks();
});

/** Fake workers: `start` hands out one per key, recording which were closed. */
function fakeWorkers(): { closed: string[] } {
  const closed: string[] = [];
  vi.spyOn(SandboxWorker, "start").mockImplementation(async (options: WorkerOptions) => {
    const fake = { alive: true, busy: 0, close: async () => void closed.push(options.bundlePath) };
    return fake as unknown as SandboxWorker;
  });
  return { closed };
}

const key = (bundlePath: string) => ({ runId: "run", bundlePath });
const options = (bundlePath: string) => async () => ({ bundlePath }) as WorkerOptions;

describe("the warm pool", () => {
  it("closes the least recently used idle worker beyond maxWorkers, counting warm lookups as uses", async () => {
    const { closed } = fakeWorkers();
    const pool = new WorkerPool(2);
    await pool.acquire(key("a"), options("a"));
    await pool.acquire(key("b"), options("b"));
    expect(pool.warm(key("a"))).toBeDefined();
    await pool.acquire(key("c"), options("c"));
    expect(closed).toEqual(["b"]);
    // Starting c made it the most recently used, so using a now moves a behind it (a stale
    // "a is the most recent" from before c started would leave c last); then a again, in a row.
    expect(pool.warm(key("a"))).toBeDefined();
    expect(pool.warm(key("a"))).toBeDefined();
    await pool.acquire(key("d"), options("d"));
    expect(closed).toEqual(["b", "c"]);
    expect(pool.warm(key("b"))).toBeUndefined();
    expect(pool.warm(key("a"))).toBeDefined();
    // A worker started again after it was closed is the most recent one.
    await pool.acquire(key("b"), options("b"));
    expect(closed).toEqual(["b", "c", "d"]);
    await pool.close();
  });

  it("spawns in the caller's turn when the options are given at once, and only after they resolve when they are a promise", async () => {
    const spawned: string[] = [];
    vi.spyOn(SandboxWorker, "start").mockImplementation(async (options: WorkerOptions) => {
      spawned.push(options.bundlePath);
      return { alive: true, busy: 0, close: async () => undefined } as unknown as SandboxWorker;
    });
    const pool = new WorkerPool(4);
    const now = pool.acquire(key("now"), () => ({ bundlePath: "now" }) as WorkerOptions);
    expect(spawned).toEqual(["now"]);
    const later = pool.acquire(key("later"), options("later"));
    expect(spawned).toEqual(["now"]);
    await Promise.all([now, later]);
    expect(spawned).toEqual(["now", "later"]);
    await pool.close();
  });
});
