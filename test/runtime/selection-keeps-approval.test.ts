/**
 * Seed "Execution Model": "Selection never bypasses a host restriction or the tool's
 * needsApproval policy." A deferred, approval-gated tool activated by tool_search (or promoted
 * with useTool) still stops at approval_required; a host-disabled built-in stays refused even
 * when a search names it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openRuntime, type Runtime } from "../../runtime-min/index.js";
import { seedTools } from "../helpers/support-agent.js";
import { createAgent, type AgentFixture } from "./helpers/agent-fixture.js";

let agent: AgentFixture;
let runtime: Runtime;

beforeAll(async () => {
  agent = await createAgent([
    {
      name: "record_note",
      file: seedTools.recordNote,
      visibility: "deferred",
      needsApproval: { reason: "Recording a note is a durable side effect.", sideEffect: "idempotent" },
    },
  ]);
  runtime = await openRuntime({ root: agent.root, coreToolPolicy: { disabled: ["grep"] } });
});

afterAll(async () => {
  await runtime?.close();
  agent?.cleanup();
});

describe("selection never bypasses policy", () => {
  it("a deferred tool activated by tool_search still needs approval", async () => {
    const found = await runtime.call({ tool: "tool_search", input: { query: "note" }, runId: "sel", callId: "s1" });
    expect(found.status).toBe("ok");
    expect(runtime.snapshot({ runId: "sel" }).tools.map((t) => t.name)).toContain("record_note");
    const call = await runtime.call({ tool: "record_note", input: { note: "x" }, runId: "sel", callId: "n1" });
    expect(call).toMatchObject({ status: "approval_required", approval: { reason: "Recording a note is a durable side effect.", state: "pending" } });
    expect(call.events.map((e) => e.type)).not.toContain("tool.execution_started");
  });

  it("a tool promoted with useTool still needs approval", async () => {
    runtime.useTool("record_note");
    const call = await runtime.call({ tool: "record_note", input: { note: "y" }, runId: "sel-2", callId: "n1" });
    expect(call.status).toBe("approval_required");
  });

  it("a built-in the host disabled is neither found nor callable", async () => {
    expect(runtime.search("grep").tools.map((t) => t.name)).not.toContain("grep");
    const call = await runtime.call({ tool: "grep", input: { pattern: "x" }, runId: "sel-3", callId: "g1" });
    expect(call).toMatchObject({ status: "failed" });
  });
});
