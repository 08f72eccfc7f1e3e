/**
 * Every tool-call failure kind, from real bundles in sandbox processes: each returns
 * `{ error, failure: { kind, runCanContinue: true } }` with `tool.execution_failed`, and the run
 * stays usable.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openRuntime, type CallResult, type Runtime } from "../../runtime-min/index.js";
import { seedTools } from "../helpers/support-agent.js";
import { createAgent, type AgentFixture } from "./helpers/agent-fixture.js";

let agent: AgentFixture;
let runtime: Runtime;
const probe = (name: string, factory = name, extra: object = {}) => ({ name, file: "probes.ts", factory, ...extra });

beforeAll(async () => {
  agent = await createAgent([
    { name: "echo", file: seedTools.echo },
    { name: "missing_export", file: seedTools.echo, factory: "createEchoTool", description: "Echo.", inputSchema: { type: "object" } },
    probe("throwing"),
    probe("bigint_result", "bigintResult"),
    probe("function_result", "functionResult"),
    probe("cycle_result", "cycleResult"),
    probe("undefined_result", "undefinedResult"),
    probe("factory_throws", "factoryThrows", { description: "Throws in its factory.", inputSchema: { type: "object" } }),
    probe("not_a_tool", "notATool", { description: "Not a tool.", inputSchema: { type: "object" } }),
    probe("strict_input", "strictInput"),
    probe("needs_config", "pid", { requiredConfig: ["PROBE_URL", "PROBE_REGION"] }),
    probe("approval_drift", "approvalDrift", { needsApproval: null }),
    probe("projection_throws", "projectionThrows"),
    probe("projection_not_json", "projectionNotJson"),
    probe("cause_chain", "causeChain"),
    { name: "load_throws", file: "load-throws.ts", description: "Throws while its module loads.", inputSchema: { type: "object" }, needsApproval: null },
  ]);
  runtime = await openRuntime({ root: agent.root });
});

afterAll(async () => {
  await runtime?.close();
  agent?.cleanup();
});

async function callAndCheckRunContinues(tool: string, input: unknown): Promise<CallResult> {
  const runId = `run-${tool}`;
  const result = await runtime.call({ tool, input, runId, callId: "failing" });
  expect(result.status).toBe("failed");
  expect(result.failure?.runCanContinue).toBe(true);
  const failedEvents = result.events.filter((event) => event.type === "tool.execution_failed").map(({ stack: _stack, ...event }) => event);
  expect(failedEvents).toEqual([{ type: "tool.execution_failed", tool, callId: "failing", kind: result.failure!.kind, error: result.error }]);
  const next = await runtime.call({ tool: "echo", input: { message: "still here" }, runId, callId: "next" });
  expect(next).toMatchObject({ status: "ok", output: { message: "still here" } });
  return result;
}

describe("invalid_input", () => {
  it("names the field that fails the locked inputSchema", async () => {
    const result = await callAndCheckRunContinues("echo", { message: 42 });
    expect(result.failure?.kind).toBe("invalid_input");
    expect(result.error).toBe("Input for tool 'echo' does not match its inputSchema: `message` must be a string, but it is a number.");
    expect(result.events.map((event) => event.type)).toEqual(["tool.execution_failed"]);
  });

  it("names a missing required field, and never coerces types", async () => {
    const missing = await callAndCheckRunContinues("strict_input", {});
    expect(missing.error).toContain("`count` is required");
    const coerced = await runtime.call({ tool: "strict_input", input: { count: "3" } });
    expect(coerced.failure?.kind).toBe("invalid_input");
    expect(coerced.error).toContain("`count` must be an integer, but it is a string");
    const nested = await runtime.call({ tool: "strict_input", input: { count: 1, tags: ["a", 2] } });
    expect(nested.error).toContain("`tags[1]` must be a string, but it is a number");
  });

  it("passes unknown keys through instead of silently stripping them", async () => {
    const result = await runtime.call({ tool: "strict_input", input: { count: 3, extra: { kept: true } } });
    expect(result.output).toEqual({ received: { count: 3, extra: { kept: true } } });
  });

  it("treats an unknown tool as a failed call with a suggestion", async () => {
    const result = await callAndCheckRunContinues("ecoh", { message: "x" });
    expect(result.failure?.kind).toBe("invalid_input");
    expect(result.error).toBe("There is no tool 'ecoh' on surface '.'. Did you mean 'echo'?");
  });
});

describe("configuration_error", () => {
  it.each([
    [
      "every missing requiredConfig value and how to supply it",
      "needs_config",
      "Tool 'needs_config' needs the host values PROBE_URL, PROBE_REGION (requiredConfig), which the host did not supply. Pass --config PROBE_URL=<value> --config PROBE_REGION=<value> (or hostConfig in openRuntime).",
    ],
    ["a factory that throws", "factory_throws", "The factory 'factoryThrows' of tool 'factory_throws' threw: index 'products' is not reachable"],
    ["a missing factory export, listing what the bundle exports", "missing_export", "The bundle of tool 'missing_export' has no export 'createEchoTool' (the descriptor's factory)."],
    ["a factory that returns no ToolDefinition", "not_a_tool", expect.stringContaining("is not a ToolDefinition")],
    [
      "a definition that asks for approval the lock does not record, and refuses to run it",
      "approval_drift",
      expect.stringContaining("asks for approval (\"Sends an email.\"), but the locked contract has no approval policy"),
    ],
  ])("reports %s", async (_what, tool, error) => {
    const result = await callAndCheckRunContinues(tool, {});
    expect(result.failure?.kind).toBe("configuration_error");
    expect(result.error).toEqual(error);
  });
});

/** The frame lines (`    at …`) of a failed call's stack. */
function frames(result: CallResult): string[] {
  const failed = result.events.find((event) => event.type === "tool.execution_failed")!;
  return String(failed["stack"]).split("\n").filter((line) => /^\s+at /.test(line));
}

describe("a failed call's stack", () => {
  it.each([["throwing"], ["factory_throws"], ["load_throws"]])("holds the tool's own frames only, not the runtime's or Node's (helper-75 K3: executeDefinition, runCall in [eval1]) (%s)", async (tool) => {
    const shown = frames(await callAndCheckRunContinues(tool, {}));
    expect(shown.length).toBeGreaterThan(0);
    for (const frame of shown) expect(frame).toMatch(/\.mjs:\d+:\d+\)?$/);
  });
});

describe("configuration_error's stack", () => {
  it("of a factory that throws is the factory's, in the event log (helper-75), as an execute's is", async () => {
    const result = await callAndCheckRunContinues("factory_throws", {});
    const failed = result.events.find((event) => event.type === "tool.execution_failed")!;
    expect(String(failed["stack"])).toMatch(/^Error: index 'products' is not reachable\n\s+at .*\.mjs:\d+:\d+/);
  });
});

describe("execution_error", () => {
  it("reports any other throw with its message", async () => {
    const result = await callAndCheckRunContinues("throwing", {});
    expect(result).toMatchObject({ error: "Database unavailable", failure: { kind: "execution_error", runCanContinue: true } });
    // The host's event log keeps where it was thrown (the bundle's lines); the model sees only the error.
    const failed = result.events.find((event) => event.type === "tool.execution_failed")!;
    expect(String(failed["stack"])).toMatch(/^Error: Database unavailable\n\s+at .*\.mjs:\d+:\d+/);
    expect(JSON.stringify(result.output ?? null)).not.toContain("at ");
  });

  it.each([
    ["projection_throws", "toModelOutput of tool 'projection_throws' threw: projection broke", 1],
    ["projection_not_json", "toModelOutput of tool 'projection_not_json' returned a value that is not JSON: model output.total is a BigInt; the value must be JSON-serializable.", 2],
  ])("keeps the full result when only toModelOutput fails (%s); the model sees only the error", async (tool, error, pub) => {
    const result = await callAndCheckRunContinues(tool, {});
    expect(result).toMatchObject({ error, failure: { kind: "execution_error" } });
    expect(JSON.stringify(result)).not.toContain("s3cr3t");
    expect(runtime.callRecord(`run-${tool}`, "failing")).toMatchObject({ status: "failed", output: { secret: "s3cr3t", pub } });
  });

  it("reports a bundle whose top-level code throws while loading (the tool's code failing, not its configuration)", async () => {
    const result = await callAndCheckRunContinues("load_throws", {});
    expect(result).toMatchObject({ error: "The bundle of tool 'load_throws' threw while loading: load boom: no region at import time", failure: { kind: "execution_error" } });
    const failed = result.events.find((event) => event.type === "tool.execution_failed")!;
    expect(String(failed["stack"])).toMatch(/^Error: load boom/);
  });

  it("shows the causes of what a tool threw, bounded (helper-78 D3: fetch's 'fetch failed' hid 'self-signed certificate…')", async () => {
    const result = await callAndCheckRunContinues("cause_chain", {});
    expect(result).toMatchObject({ error: "fetch failed (cause: self-signed certificate in certificate chain)", failure: { kind: "execution_error" } });
    const deep = await runtime.call({ tool: "cause_chain", input: { depth: 6 } });
    expect(deep.error).toBe("fetch failed (cause: level 5; caused by: level 4; caused by: level 3)");
    // The model sees messages only, never a cause's stack.
    expect(deep.error).not.toContain(" at ");
  });

  it.each([
    ["bigint_result", "result.total is a BigInt"],
    ["function_result", "result.items[0].callback is a function"],
    ["cycle_result", "result.self refers back to one of its parents (a cycle)"],
    ["undefined_result", "result is undefined"],
  ])("refuses a result that is not JSON-serializable (%s)", async (tool, where) => {
    const result = await callAndCheckRunContinues(tool, {});
    expect(result.failure?.kind).toBe("execution_error");
    expect(result.error).toBe(`Tool '${tool}' returned a value that is not JSON: ${where}; the value must be JSON-serializable.`);
  });
});

describe("execution_error in direct mode", () => {
  it("shows the causes of what a tool threw as the sandbox does (helper-78 D3)", async () => {
    const direct = await openRuntime({ root: agent.root, execution: "direct" });
    try {
      const result = await direct.call({ tool: "cause_chain", input: {}, runId: "direct-cause" });
      expect(result).toMatchObject({ status: "failed", error: "fetch failed (cause: self-signed certificate in certificate chain)", failure: { kind: "execution_error" } });
    } finally {
      await direct.close();
    }
  });
});
