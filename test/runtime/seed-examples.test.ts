/**
 * Each seed example (seed/plugin-tools.md) runs as a real bundle in a real sandbox process and
 * gives the seed's exact outputs.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openRuntime, type Runtime } from "../../runtime-min/index.js";
import { deriveIdempotencyKey } from "../../runtime-min/index.js";
import { seedTools } from "../helpers/support-agent.js";
import { createAgent, type AgentFixture } from "./helpers/agent-fixture.js";

let agent: AgentFixture;
let runtime: Runtime;

beforeAll(async () => {
  agent = await createAgent([
    { name: "echo", file: seedTools.echo },
    { name: "accept_document", file: seedTools.acceptDocument },
    { name: "record_note", file: seedTools.recordNote },
    { name: "hydrate_customer", file: seedTools.hydrateCustomer, inject: ["fetch-shim.ts"] },
    { name: "lookup_record", file: seedTools.lookupRecord },
    { name: "search", file: "search.ts", capability: "private-search", factory: "createSearchTool", config: { limit: 20, index: "products" }, requiredConfig: ["SEARCH_API_URL"] },
  ]);
  runtime = await openRuntime({ root: agent.root, hostConfig: { SEARCH_API_URL: "https://search.example.com", UNDECLARED: "not for tools" } });
});

afterAll(async () => {
  await runtime?.close();
  agent?.cleanup();
});

describe("seed examples in the sandbox", () => {
  it("Minimal Example: echo returns the message", async () => {
    const result = await runtime.call({ tool: "echo", input: { message: "Hello" }, runId: "echo-run", callId: "c1" });
    expect(result).toEqual({
      status: "ok",
      output: { message: "Hello" },
      events: [
        { type: "tool.execution_started", tool: "echo", callId: "c1", surface: ".", runtimeBoundary: "sandbox" },
        { type: "tool.execution_completed", tool: "echo", callId: "c1" },
      ],
      runId: "echo-run",
      callId: "c1",
      tool: "echo",
    });
  });

  it("RecoverableToolError: an incomplete document is invalid_input and the run continues", async () => {
    const failed = await runtime.call({ tool: "accept_document", input: { document: "{ \"a\": 1" }, runId: "doc-run", callId: "c1" });
    expect(failed.status).toBe("failed");
    expect(failed.error).toBe("Document is incomplete.");
    expect(failed.failure).toEqual({ kind: "invalid_input", runCanContinue: true });
    expect(failed.events.map((event) => event.type)).toEqual(["tool.execution_started", "tool.execution_failed"]);
    expect(failed.events[1]).toEqual({ type: "tool.execution_failed", tool: "accept_document", callId: "c1", kind: "invalid_input", error: "Document is incomplete." });
    const accepted = await runtime.call({ tool: "accept_document", input: { document: "{ \"a\": 1 }" }, runId: "doc-run", callId: "c2" });
    expect(accepted.status).toBe("ok");
    expect(accepted.output).toEqual({ accepted: true });
  });

  it("factory: createSearchTool receives { limit: 20, index: 'products' }; ctx.config adds the host's URL, read-only", async () => {
    const result = await runtime.call({ tool: "search", input: { query: "shoes" } });
    expect(result.status).toBe("ok");
    expect(result.output).toEqual({
      factoryConfig: { limit: 20, index: "products" },
      ctxConfig: { limit: 20, index: "products", SEARCH_API_URL: "https://search.example.com" },
      configWritable: false,
      query: "shoes",
    });
  });

  it("Approval Gates: the call stops, approve executes it exactly once, a second approve does nothing", async () => {
    const pending = await runtime.call({ tool: "record_note", input: { note: "Call back on Monday" }, runId: "note-run", callId: "note-1" });
    expect(pending).toEqual({
      status: "approval_required",
      approval: { reason: "Recording a note is a durable side effect.", sideEffect: "idempotent", state: "pending" },
      events: [
        { type: "tool.approval_requested", tool: "record_note", callId: "note-1", reason: "Recording a note is a durable side effect.", sideEffect: "idempotent" },
      ],
      runId: "note-run",
      callId: "note-1",
      tool: "record_note",
    });
    // Asking again (a retry of the same call) does not run it either.
    const repeated = await runtime.call({ tool: "record_note", input: { note: "Call back on Monday" }, runId: "note-run", callId: "note-1" });
    expect(repeated.status).toBe("approval_required");
    expect(repeated.events).toEqual([]);

    const approved = await runtime.approve({ runId: "note-run", callId: "note-1" });
    const key = deriveIdempotencyKey("note-run", "note-1", "record-note");
    expect(approved.status).toBe("ok");
    expect(approved.output).toEqual({ recorded: true });
    expect(approved.events).toEqual([
      { type: "tool.approval_granted", tool: "record_note", callId: "note-1" },
      { type: "tool.execution_started", tool: "record_note", callId: "note-1", surface: ".", runtimeBoundary: "sandbox" },
      { type: "note.recorded", note: "Call back on Monday", idempotencyKey: key },
      { type: "tool.execution_completed", tool: "record_note", callId: "note-1" },
    ]);

    const again = await runtime.approve({ runId: "note-run", callId: "note-1" });
    expect(again).toMatchObject({ status: "ok", output: { recorded: true }, events: [], alreadyDecided: true });
    // Denying it now is refused: the approval stands, nothing runs or is recorded.
    const denyAfter = await runtime.approve({ runId: "note-run", callId: "note-1", deny: true });
    expect(denyAfter).toMatchObject({ status: "failed", events: [], alreadyDecided: true, approval: { state: "approved" } });
    expect(denyAfter.error).toContain("was approved earlier and ran, so it cannot be denied");
    expect(denyAfter.output).toBeUndefined();
    const recorded = runtime.events("note-run").filter((event) => event.type === "note.recorded");
    expect(recorded).toHaveLength(1);
    expect(runtime.events("note-run").map((event) => event.type)).not.toContain("tool.approval_denied");
  });

  it("Approval Gates: a denied call never executes", async () => {
    await runtime.call({ tool: "record_note", input: { note: "secret" }, runId: "deny-run", callId: "n1" });
    const denied = await runtime.approve({ runId: "deny-run", callId: "n1", deny: true });
    expect(denied.status).toBe("failed");
    expect(denied.failure).toBeUndefined();
    expect(denied.approval?.state).toBe("denied");
    expect(denied.error).toContain("was denied, so it did not run");
    expect(denied.events.map((event) => event.type)).toEqual(["tool.approval_denied"]);
    const approveAfterDeny = await runtime.approve({ runId: "deny-run", callId: "n1" });
    expect(approveAfterDeny).toMatchObject({ status: "failed", alreadyDecided: true, events: [] });
    const types = runtime.events("deny-run").map((event) => event.type);
    expect(types).not.toContain("tool.execution_started");
    expect(types).not.toContain("note.recorded");
  });

  it("Safe Model Output: the model sees the projection, the full result is persisted", async () => {
    const result = await runtime.call({ tool: "lookup_record", input: { lookup: "order 42" }, runId: "lookup-run", callId: "l1" });
    expect(result.output).toEqual({ summary: "Found order 42" });
    const record = runtime.callRecord("lookup-run", "l1");
    expect(record?.output).toEqual({ summary: "Found order 42", internalScore: 0.98, internalTrace: ["vector", "rerank", "policy"] });
    expect(record?.modelOutput).toEqual({ summary: "Found order 42" });
  });

  it("Durable Steps: replayed across two runtime instances of the same run, not replayed in another run", async () => {
    // The first host drives the run, then stops (closing lets the run go at once).
    const firstHost = await openRuntime({ root: agent.root });
    const first = await firstHost.call({ tool: "hydrate_customer", input: { customerId: "cus_1" }, runId: "steps-run", callId: "h1" }).finally(() => firstHost.close());
    const profile = { id: "cus_1", name: "Customer cus_1", tier: "gold" };
    expect(first.output).toEqual({ profile });
    expect(first.events.map((event) => event.type)).toEqual(["tool.execution_started", "durable_step.recorded", "tool.execution_completed"]);

    // A second runtime instance (its own database connection and sandbox processes) resumes the run.
    const second = await openRuntime({ root: agent.root });
    try {
      const resumed = await second.call({ tool: "hydrate_customer", input: { customerId: "cus_1" }, runId: "steps-run", callId: "h2" });
      expect(resumed.output).toEqual({ profile });
      expect(resumed.events).toEqual([
        { type: "tool.execution_started", tool: "hydrate_customer", callId: "h2", surface: ".", runtimeBoundary: "sandbox" },
        { type: "durable_step.replayed", tool: "hydrate_customer", callId: "h2", key: "hydrate-customer:cus_1" },
        { type: "tool.execution_completed", tool: "hydrate_customer", callId: "h2" },
      ]);
      const other = await second.call({ tool: "hydrate_customer", input: { customerId: "cus_1" }, runId: "other-run", callId: "h1" });
      expect(other.events.map((event) => event.type)).toContain("durable_step.recorded");
      expect(other.events.map((event) => event.type)).not.toContain("durable_step.replayed");
    } finally {
      await second.close();
    }
    const log = (run: string) => fs.readFileSync(path.join(agent.root, ".assemblyline/runs", run, "workspace/fetch-log.txt"), "utf8").trim().split("\n");
    const stepsRunLog = log("steps-run");
    expect(stepsRunLog).toHaveLength(1);
    expect(stepsRunLog[0]).toBe(`https://api.example.com/customers/cus_1 ${deriveIdempotencyKey("steps-run", "h1", "customer:cus_1")}`);
    expect(log("other-run")).toHaveLength(1);
  });
});
