/**
 * A call's end signal (`CallSession.signal`: shell commands still running end, built-ins stop)
 * is made only when something takes it (issue 14 item 2, docs/runtime.md, seventh round):
 * Node 20's `AbortController.abort()` cost about 25 µs of every `echo` round trip, for a signal
 * nobody listened to. A signal taken after the call ended must still read as ended, with the
 * reason it would have had, or a shell command still waiting for its turn when the call
 * finished would start after it.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { CallSession, type SessionShell } from "../../runtime-min/execution/call-session.js";
import { ControlPlaneError } from "../../runtime-min/failures.js";
import type { StateStore } from "../../runtime-min/state/state-store.js";

// finish(), interrupt() and signal touch neither the store nor the shell.
const session = (): CallSession =>
  new CallSession({} as StateStore, { runId: "run", callId: "call", tool: "echo", workspace: "/nowhere" }, {} as SessionShell);

afterEach(() => {
  vi.restoreAllMocks();
});

describe("a call's end signal", () => {
  it("aborts nothing when the call finishes without anything having taken it", () => {
    const made = vi.spyOn(AbortController.prototype, "abort");
    const call = session();
    call.finish();
    expect(made).not.toHaveBeenCalled();
  });

  it("taken during the call, aborts when the call finishes", () => {
    const call = session();
    const signal = call.signal;
    expect(signal.aborted).toBe(false);
    expect(call.signal).toBe(signal);
    call.finish();
    expect(signal.aborted).toBe(true);
    expect((signal.reason as Error).name).toBe("AbortError");
  });

  it("taken after the call finished, is aborted already", () => {
    const call = session();
    call.finish();
    expect(call.signal.aborted).toBe(true);
    expect((call.signal.reason as Error).name).toBe("AbortError");
  });

  it("taken after an interrupt, is aborted with the interrupt's failure, which finish() keeps", () => {
    const failure = new ControlPlaneError("deadline_exceeded", "The call passed its deadline.");
    const call = session();
    call.interrupt(failure);
    call.finish();
    expect(call.signal.aborted).toBe(true);
    expect(call.signal.reason).toBe(failure);
  });

  it("taken during the call, aborts with the interrupt's failure, once", () => {
    const failure = new ControlPlaneError("cancelled", "The host cancelled the call.");
    const call = session();
    const events: unknown[] = [];
    call.signal.addEventListener("abort", () => events.push(call.signal.reason));
    call.interrupt(failure);
    call.finish();
    expect(events).toEqual([failure]);
  });
});
