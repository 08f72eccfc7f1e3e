/**
 * superviseCall's deadlines and lease watch (issue 14 item 2): one Node timer serves the
 * deadlines of every call in flight, so a stream of calls does not set and clear a timer per
 * call; each call still fails at its own deadline, and a lost lease interrupts the calls that
 * watch it. Timing is the mechanism only (short deadlines); nothing asserts how fast anything is.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { superviseCall, type LeaseWatch } from "../../runtime-min/execution/supervise-call.js";
import { ControlPlaneError } from "../../runtime-min/failures.js";

const never = () => new Promise<never>(() => undefined);
const stopped: string[] = [];
const stop = (name: string) => async () => {
  stopped.push(name);
};

afterEach(() => {
  vi.restoreAllMocks();
  stopped.length = 0;
});

describe("deadlines", () => {
  it("serve a stream of calls with one timer, not a timer per call", async () => {
    const timers = vi.spyOn(globalThis, "setTimeout");
    for (let i = 0; i < 50; i++) expect(await superviseCall(async () => i, { deadlineMs: 60_000 }, stop("x"))).toBe(i);
    expect(timers.mock.calls.length).toBeLessThanOrEqual(1);
    expect(stopped).toEqual([]);
  });

  it("fail each call at its own deadline, whatever order they were started in, and leave finished calls alone", async () => {
    const outcome = (promise: Promise<unknown>) =>
      promise.then(
        (value) => ({ value }),
        (error: ControlPlaneError) => ({ reason: error.reason, message: error.message }),
      );
    const finishedAt: string[] = [];
    const track = (name: string, promise: Promise<unknown>) => outcome(promise).finally(() => finishedAt.push(name));
    const slow = track("slow", superviseCall(never, { deadlineMs: 300 }, stop("slow")));
    const fast = track("fast", superviseCall(never, { deadlineMs: 20 }, stop("fast")));
    const done = track("done", superviseCall(async () => "ok", { deadlineMs: 10 }, stop("done")));
    const middle = track("middle", superviseCall(never, { deadlineMs: 100 }, stop("middle")));
    expect(await done).toEqual({ value: "ok" });
    expect(await fast).toMatchObject({ reason: "deadline_exceeded" });
    expect(await middle).toMatchObject({ reason: "deadline_exceeded" });
    expect(await slow).toMatchObject({ reason: "deadline_exceeded", message: expect.stringContaining("300") });
    expect(finishedAt).toEqual(["done", "fast", "middle", "slow"]);
    expect(stopped).toEqual(["fast", "middle", "slow"]);
  });
});

describe("the lease watch", () => {
  /** A lease that can be lost by hand, counting its watchers. */
  function fakeLease() {
    const watchers = new Set<(failure: ControlPlaneError) => void>();
    const lease: LeaseWatch & { lose(): void; readonly watching: number } = {
      lost: undefined,
      watch(onLost) {
        watchers.add(onLost);
        return () => watchers.delete(onLost);
      },
      lose() {
        const failure = new ControlPlaneError("lease_expired", "lost for the test");
        (lease as { lost: ControlPlaneError | undefined }).lost = failure;
        for (const onLost of [...watchers]) onLost(failure);
      },
      get watching() {
        return watchers.size;
      },
    };
    return lease;
  }

  it("stops watching when a call finishes, and interrupts the calls in flight when the lease is lost", async () => {
    const lease = fakeLease();
    expect(await superviseCall(async () => 1, {}, stop("a"), lease)).toBe(1);
    expect(lease.watching).toBe(0);
    const running = superviseCall(never, { deadlineMs: 60_000 }, stop("b"), lease);
    expect(lease.watching).toBe(1);
    lease.lose();
    await expect(running).rejects.toMatchObject({ reason: "lease_expired", message: "lost for the test" });
    expect(lease.watching).toBe(0);
    expect(stopped).toEqual(["b"]);
    // A call started on a lost lease does not run.
    const body = vi.fn(async () => 2);
    await expect(superviseCall(body, {}, stop("c"), lease)).rejects.toMatchObject({ reason: "lease_expired" });
    expect(body).not.toHaveBeenCalled();
  });
});
