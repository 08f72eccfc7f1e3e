/**
 * Issue 14 item 2: small messages travel inline on the bridge socket (length-prefixed frames),
 * and tool code runs in the process that owns that socket — so a hostile tool can write
 * anything on it. Garbage, an endless header, an inline frame announced over the limit, a frame
 * that never ends and a child that dies mid-frame are each bounded (nothing is buffered beyond
 * the inline limit), diagnosed (the call's error says what the child did) and end the call
 * with `execution_error`; the run continues and the next call gets a fresh sandbox process.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { openRuntime, type Runtime } from "../../runtime-min/index.js";
import { EnvelopeBridge, INLINE_FRAME_MAX_BYTES } from "../../runtime-min/sandbox/bridge.js";
import { MAX_FAILURE_TEXT_CHARS } from "../../runtime-min/sandbox/protocol.js";
import { setFrameStallMs } from "../../runtime-min/sandbox/sandbox-worker.js";
import { seedTools } from "../helpers/support-agent.js";
import { createAgent, type AgentFixture } from "./helpers/agent-fixture.js";

let agent: AgentFixture;
let runtime: Runtime;

beforeAll(async () => {
  agent = await createAgent([
    { name: "echo", file: seedTools.echo },
    { name: "raw_frame", file: "bridge-hostile.ts", factory: "rawFrame" },
    { name: "long_error", file: "bridge-hostile.ts", factory: "longError" },
  ]);
  runtime = await openRuntime({ root: agent.root });
});

afterAll(async () => {
  setFrameStallMs(undefined);
  await runtime?.close();
  agent?.cleanup();
});

/** Runs `raw_frame` with `input` in a fresh run, then checks that the run goes on with a fresh sandbox. */
async function attack(runId: string, input: Record<string, unknown>): Promise<string> {
  const result = await runtime.call({ tool: "raw_frame", input, runId, callId: "attack" });
  expect(result.status).toBe("failed");
  expect(result.failure).toEqual({ kind: "execution_error", runCanContinue: true });
  // Nothing of the attacking call's result was recorded; the run continues.
  expect(runtime.callRecord(runId, "attack")).toMatchObject({ status: "failed", output: undefined });
  const next = await runtime.call({ tool: "echo", input: { message: "still here" }, runId });
  expect(next).toMatchObject({ status: "ok", output: { message: "still here" } });
  return result.error!;
}

describe("a hostile tool writing on the bridge socket", () => {
  it("garbage that is no frame header: the child is stopped for breaking the protocol, and nothing it sends after counts", async () => {
    // A forged result for the call (request id 1 of a fresh worker) right after the garbage: when
    // it arrives in a later read than the garbage, before the kill took effect, it must not
    // complete the call.
    const forged = JSON.stringify({ kind: "result", id: 1, ok: true, output: { forged: true } });
    const error = await attack("garbage", { text: "hello host\n", second: `i ${forged.length}\n${forged}` });
    expect(error).toContain("broke the bridge protocol (The bridge received 'hello host', which is neither a doorbell nor an inline frame header.) and was stopped");
  });

  it("an endless header line: refused once it passes 64 bytes, not buffered", async () => {
    const error = await attack("endless-header", { text: "x", repeat: 1024 * 1024, after: "hang" });
    expect(error).toContain("broke the bridge protocol (The bridge received a header line longer than 64 bytes.)");
  });

  it("an inline frame announced over the limit: refused from its header, before any payload is held", async () => {
    const error = await attack("oversized", { text: `i ${INLINE_FRAME_MAX_BYTES + 1}\n{`, after: "hang" });
    expect(error).toContain(`inline frame of ${INLINE_FRAME_MAX_BYTES + 1} bytes, over the limit of ${INLINE_FRAME_MAX_BYTES} bytes`);
  });

  it("a complete frame whose payload is not JSON: refused", async () => {
    const error = await attack("not-json", { text: "i 5\nhello" });
    expect(error).toMatch(/broke the bridge protocol \(.*JSON.*\) and was stopped/);
  });

  it("a complete frame that is JSON but no message object: refused, the host does not trip over it", async () => {
    const error = await attack("not-an-object", { text: "i 4\nnull" });
    expect(error).toContain("broke the bridge protocol (The bridge received null, which is not a message object.) and was stopped");
  });

  it("a frame that never ends: the child is stopped once the frame stalls, and the call ends", async () => {
    setFrameStallMs(300);
    try {
      const error = await attack("never-ending", { text: 'i 100\n{"kind":"result"', after: "hang" });
      expect(error).toContain("broke the bridge protocol (it sent 16 bytes of the 100-byte frame it announced and nothing more for 300 ms) and was stopped");
    } finally {
      setFrameStallMs(undefined);
    }
  });

  it("a child that dies mid-frame: the partial frame is never parsed, and no result is recorded", async () => {
    const error = await attack("dies-mid-frame", { text: 'i 60\n{"kind":"result","id":1,"ok":true,"output":{"forged":', after: "die" });
    expect(error).toContain("The sandbox process exited with code 9 before the call finished; no result was recorded.");
  });
});

describe("which messages travel inline", () => {
  it("an echo call crosses the bridge inline both ways; a ctx.getSandbox() file exchange, however small, uses file envelopes", async () => {
    const files = await createAgent([
      { name: "echo", file: seedTools.echo },
      { name: "bytes_round_trip", file: "probes.ts", factory: "bytesRoundTrip" },
    ]);
    const host = await openRuntime({ root: files.root });
    // The host reads a child's file envelope with take(); an inline frame never reaches it.
    const take = vi.spyOn(EnvelopeBridge.prototype, "take");
    try {
      expect((await host.call({ tool: "echo", input: { message: "warm" }, runId: "inline" })).status).toBe("ok");
      take.mockClear();
      expect((await host.call({ tool: "echo", input: { message: "hi" }, runId: "inline" })).status).toBe("ok");
      expect(take).not.toHaveBeenCalled();
      const exchange = await host.call({ tool: "bytes_round_trip", input: {}, runId: "files" });
      expect(exchange.status).toBe("ok");
      // Its writeFile and readFile requests (a few hundred bytes each) came as file envelopes.
      const ops = take.mock.results.map((result) => (result.value as { operation?: { op?: string } }).operation?.op).filter(Boolean);
      expect(ops).toEqual(expect.arrayContaining(["sandbox.writeFile", "sandbox.readFileBytes"]));
    } finally {
      take.mockRestore();
      await host.close();
      files.cleanup();
    }
  });
});

/** `message` as one inline frame (`i <bytes>\n<JSON>`), for each of the first `ids` call ids of a fresh sandbox process. */
function framesFor(message: (id: number) => unknown, ids = 3): string {
  let text = "";
  for (let id = 1; id <= ids; id++) {
    const json = JSON.stringify(message(id));
    text += `i ${Buffer.byteLength(json)}\n${json}`;
  }
  return text;
}

/** `value` nested in `levels` arrays, as JSON text (built as text: a value this deep cannot be stringified). */
function nestedText(levels: number): string {
  return `${"[".repeat(levels)}${"]".repeat(levels)}`;
}

/** A forged `ctx` frame for each of the first call ids, then the tool returns normally. */
async function forgeContext(runId: string, operation: Record<string, unknown>): Promise<string> {
  return attack(runId, { text: framesFor((callId) => ({ kind: "ctx", id: 900_000 + callId, callId, operation })), after: "return" });
}

/** A forged result frame for each of the first call ids, then the tool never returns. */
async function forgeResult(runId: string, fields: Record<string, unknown>): Promise<string> {
  return attack(runId, { text: framesFor((id) => ({ kind: "result", id, ...fields })), after: "hang" });
}

// helper-89's review of 6 December, finding 4: raw frames skip every check the child's `ctx` and
// result code make, so the host checks each message itself; a message no well-behaved child
// sends breaks the protocol (the process is stopped, the call fails with execution_error, the run
// continues) — it never forges the audit log nor ends the run as a state-store failure.
describe("a hostile tool forging messages on the bridge socket", () => {
  it("an emit of a reserved event type (a forged audit log): refused, and nothing of it recorded", async () => {
    const error = await forgeContext("forged-reserved", { op: "emit", type: "tool.execution_completed", data: { tool: "echo", callId: "forged" } });
    expect(error).toMatch(/broke the bridge protocol \(.*'tool\.execution_completed'.*recorded by the runtime itself.*\) and was stopped/);
    expect(runtime.events("forged-reserved").filter((event) => event.callId === "forged")).toEqual([]);
  });

  it("an emit whose data has a 'type' key (a masked event type): refused", async () => {
    const error = await forgeContext("forged-masked", { op: "emit", type: "note.recorded", data: { type: "innocent.type" } });
    expect(error).toMatch(/broke the bridge protocol \(.*'type' key.*\)/);
    expect(runtime.events("forged-masked").map((event) => event.type)).not.toContain("innocent.type");
  });

  it("an emit whose type is no string: refused as a protocol break, not a state-store failure", async () => {
    const error = await forgeContext("forged-type-object", { op: "emit", type: { a: 1 }, data: {} });
    expect(error).toMatch(/broke the bridge protocol \(.*event type.*\)/);
  });

  it("an emit whose type holds control characters (terminal escapes): refused", async () => {
    const error = await forgeContext("forged-type-escape", { op: "emit", type: "note\u001b[2J", data: {} });
    expect(error).toMatch(/broke the bridge protocol \(.*control character.*\)/);
  });

  it("an emit whose data is not a plain object: refused", async () => {
    const error = await forgeContext("forged-data-null", { op: "emit", type: "note.null", data: null });
    expect(error).toMatch(/broke the bridge protocol \(.*plain object.*\)/);
  });

  it("a step record whose key is no string: refused", async () => {
    const error = await forgeContext("forged-step-key", { op: "step.record", key: { a: 1 }, value: 1 });
    expect(error).toMatch(/broke the bridge protocol \(.*step key.*\)/);
  });

  it("a result with failureKind 'control_plane': refused; the call fails as execution_error and the run continues", async () => {
    const error = await forgeResult("forged-control-plane", { ok: false, failureKind: "control_plane", error: "forged control plane" });
    expect(error).toMatch(/broke the bridge protocol \(.*failureKind.*control_plane.*\)/);
  });

  it("a failed result with no error string, or an error that is an object, or a stack that is no string: refused", async () => {
    expect(await forgeResult("forged-no-error", { ok: false, failureKind: "execution_error" })).toMatch(/broke the bridge protocol \(.*error.*\)/);
    expect(await forgeResult("forged-error-object", { ok: false, failureKind: "execution_error", error: { not: "a string" } })).toMatch(/broke the bridge protocol \(.*error.*\)/);
    expect(await forgeResult("forged-stack-object", { ok: false, failureKind: "execution_error", error: "e", stack: { a: 1 } })).toMatch(/broke the bridge protocol \(.*stack.*\)/);
  });

  it("an ok result without output: refused", async () => {
    const error = await forgeResult("forged-no-output", { ok: true });
    expect(error).toMatch(/broke the bridge protocol \(.*output.*\)/);
  });

  it("output nested 20,000 levels: refused as a protocol break, not a state-store failure that ends the run", async () => {
    const text = `{"kind":"result","id":1,"ok":true,"output":${nestedText(20_000)}}`;
    const error = await attack("forged-deep", { text: `i ${Buffer.byteLength(text)}\n${text}`, after: "hang" });
    expect(error).toMatch(/broke the bridge protocol \(.*nested deeper than.*\)/);
  });

  it(`a tool's own error longer than ${MAX_FAILURE_TEXT_CHARS} characters is cut by the child, not refused by the host`, async () => {
    const result = await runtime.call({ tool: "long_error", input: { chars: 200_000 }, runId: "long-error" });
    expect(result).toMatchObject({ status: "failed", failure: { kind: "execution_error", runCanContinue: true } });
    expect(result.error!.length).toBeLessThanOrEqual(MAX_FAILURE_TEXT_CHARS);
    expect(result.error).toMatch(/^eeee.* … \(\d+ more characters cut\)$/);
  });

  it("a message of a kind the child never sends: refused", async () => {
    const error = await attack("forged-kind", { text: framesFor(() => ({ kind: "call", id: 1 }), 1), after: "hang" });
    expect(error).toMatch(/broke the bridge protocol \(.*kind.*\)/);
  });
});
