/**
 * Issue 13 item 1: `delegate` with deliverables, driven by a scripted child driver (the model
 * loop is the host's). A delegation that succeeds; one whose child misses a deliverable once and
 * succeeds on the retry; one that fails loudly after the retry (the parent run continues). The
 * tool is in the initial snapshot of a surface with subagents only, and names its own children.
 */
import * as fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blobPath } from "../../runtime-min/core-tools/blob-store.js";
import { openRuntime, type ChildDriver, type ChildRunRequest, type Runtime } from "../../runtime-min/index.js";
import { createCatalogAgent } from "./catalog-fixture.js";
import type { AgentFixture } from "./helpers/agent-fixture.js";

const CHILD = "subagents/researcher";
const REPORT = Buffer.from("# Findings\r\nr\u00e9sum\u00e9\u0000", "utf8");

let agent: AgentFixture;
/** The driver the current test scripts (the runtime's childDriver forwards to it). */
let script: ChildDriver = async () => ({});
let runtime: Runtime;

beforeAll(async () => {
  agent = await createCatalogAgent();
  runtime = await openRuntime({ root: agent.root, childDriver: (request) => script(request) });
});

afterAll(async () => {
  await runtime?.close();
  agent?.cleanup();
});

/** A child step: write `bytes` to /workspace/<name> and hand it off; returns the handoff path. */
async function handOff(request: ChildRunRequest, name: string, bytes: Buffer = REPORT): Promise<string> {
  const written = await request.callTool("write", { path: `/workspace/${name}`, content: bytes.toString("base64"), encoding: "base64" });
  expect(written.status).toBe("ok");
  const handed = await request.callTool("handoff_artifact", { path: `/workspace/${name}` });
  expect(handed.status).toBe("ok");
  return (handed.output as { path: string }).path;
}

const eventTypes = (events: readonly { type: string }[]) => events.map((e) => e.type).filter((t) => t.startsWith("delegation."));

describe("delegate: the tool", () => {
  it("is in the initial snapshot of a surface with subagents, naming only its own children", () => {
    const tool = runtime.snapshot().tools.find((t) => t.name === "delegate");
    expect(tool).toMatchObject({ source: "core", visibility: "visible" });
    expect((tool!.inputSchema as any).properties.agent.enum).toEqual(["researcher"]);
    expect((tool!.inputSchema as any).required).toEqual(["agent", "task"]);
  });

  it("is absent from a surface without subagents, and cannot be called there", async () => {
    expect(runtime.snapshot({ surface: CHILD }).tools.map((t) => t.name)).not.toContain("delegate");
    expect(runtime.snapshot({ surface: CHILD }).catalog.map((t) => t.name)).not.toContain("delegate");
    const called = await runtime.call({ surface: CHILD, tool: "delegate", input: { agent: "researcher", task: "x" } });
    expect(called).toMatchObject({ status: "failed", failure: { kind: "invalid_input", runCanContinue: true } });
  });

  it("refuses an agent that is not one of the surface's children", async () => {
    const called = await runtime.call({ tool: "delegate", input: { agent: "writer", task: "x" } });
    expect(called).toMatchObject({ status: "failed", failure: { kind: "invalid_input" } });
    expect(called.error).toContain("'researcher'");
  });

  it("is a configuration_error when the host supplied no child driver", async () => {
    const bare = await openRuntime({ root: agent.root });
    try {
      const called = await bare.call({ tool: "delegate", input: { agent: "researcher", task: "x" } });
      expect(called).toMatchObject({ status: "failed", failure: { kind: "configuration_error", runCanContinue: true } });
      expect(called.error).toContain("RuntimeOptions.childDriver");
    } finally {
      await bare.close();
    }
  });
});

describe("delegate: deliverables", () => {
  it("succeeds: the child's handoff comes back as a byte-verified parent path, with its links", async () => {
    const requests: ChildRunRequest[] = [];
    script = async (request) => {
      requests.push(request);
      await handOff(request, "out/report.md");
      return { output: "Done: see the report.", links: ["https://example.com/dashboards/42"] };
    };
    const result = await runtime.call({ runId: "parent-ok", conversationId: "conv-ok", tool: "delegate", input: { agent: "researcher", task: "Research X.", deliverables: { files: 1, links: 1 } } });
    expect(result.status).toBe("ok");
    const output = result.output as { childRunId: string; attempts: number; output: string; files: { path: string; size: number }[]; links: string[] };
    expect(output).toMatchObject({ agent: "researcher", attempts: 1, output: "Done: see the report.", links: ["https://example.com/dashboards/42"] });
    expect(output.files).toEqual([{ path: `/files/handoffs/${output.childRunId}/out/report.md`, size: REPORT.byteLength, sha512: expect.any(String) }]);
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ attempt: 1, parentRunId: "parent-ok", childRunId: output.childRunId, childSurfaceId: CHILD, task: "Research X.", deliverables: { files: 1, links: 1 } });
    expect(eventTypes(result.events)).toEqual(["delegation.started", "delegation.child_finished", "delegation.deliverables_verified", "delegation.completed"]);
    // The parent reads exactly the child's bytes at the returned path.
    const read = await runtime.call({ runId: "parent-ok", conversationId: "conv-ok", tool: "read", input: { path: output.files[0]!.path, encoding: "base64" } });
    expect(JSON.stringify(read.output)).toContain(REPORT.toString("base64"));
  });

  it("a child that misses a deliverable is sent back once, to the same child run, and succeeds on the retry", async () => {
    const requests: ChildRunRequest[] = [];
    script = async (request) => {
      requests.push(request);
      if (request.attempt === 2) await handOff(request, "late.md");
      return { output: `attempt ${request.attempt}` };
    };
    const result = await runtime.call({ runId: "parent-retry", tool: "delegate", input: { agent: "researcher", task: "Write it.", deliverables: { files: 1 } } });
    expect(result.status).toBe("ok");
    expect(result.output).toMatchObject({ attempts: 2, output: "attempt 2" });
    expect(requests.map((r) => r.attempt)).toEqual([1, 2]);
    expect(requests[1]!.childRunId).toBe(requests[0]!.childRunId);
    expect(requests[0]!.feedback).toBeUndefined();
    expect(requests[1]!.feedback).toContain("1 more file handed off with handoff_artifact (0 of 1)");
    expect(eventTypes(result.events)).toEqual([
      "delegation.started",
      "delegation.child_finished",
      "delegation.deliverables_missing",
      "delegation.retry_requested",
      "delegation.child_finished",
      "delegation.deliverables_verified",
      "delegation.completed",
    ]);
  });

  it("fails loudly after the retry with execution_error naming what was missing; the parent run continues", async () => {
    let calls = 0;
    script = async () => {
      calls++;
      return { output: "I could not do it.", links: ["http://insecure.example.com/x", "not a url"] };
    };
    const result = await runtime.call({ runId: "parent-fail", tool: "delegate", input: { agent: "researcher", task: "Write it.", deliverables: { files: 2, links: 1 } } });
    expect(calls).toBe(2);
    expect(result).toMatchObject({ status: "failed", failure: { kind: "execution_error", runCanContinue: true } });
    expect(result.error).toContain("did not provide its required deliverables, even after being asked again");
    expect(result.error).toContain("2 more files handed off with handoff_artifact (0 of 2)");
    expect(result.error).toContain("1 more hosted https link in the report (0 of 1)");
    expect(result.error).toContain("not hosted https URLs");
    expect(eventTypes(result.events)).toEqual([
      "delegation.started",
      "delegation.child_finished",
      "delegation.deliverables_missing",
      "delegation.retry_requested",
      "delegation.child_finished",
      "delegation.deliverables_missing",
      "delegation.failed",
    ]);
    expect(result.events.map((e) => e.type)).toContain("tool.execution_failed");
    const next = await runtime.call({ runId: "parent-fail", tool: "echo", input: { message: "still here" } });
    expect(next).toMatchObject({ status: "ok", output: { message: "still here" } });
  });

  it("does not count a handoff whose stored bytes no longer match its receipt", async () => {
    script = async (request) => {
      await handOff(request, `damaged-${request.attempt}.md`, Buffer.from(`bytes of attempt ${request.attempt}`));
      // Damage the stored blob behind the receipt (the state directory is the host's).
      const receipt = JSON.parse(fs.readFileSync(`${runtime.stateDir}/handoffs/${request.childRunId}/damaged-${request.attempt}.md.json`, "utf8"));
      const blob = blobPath(runtime.stateDir, receipt.sha512);
      fs.chmodSync(blob, 0o600);
      fs.writeFileSync(blob, "tampered");
      return {};
    };
    const result = await runtime.call({ runId: "parent-damaged", tool: "delegate", input: { agent: "researcher", task: "x", deliverables: { files: 1 } } });
    expect(result).toMatchObject({ status: "failed", failure: { kind: "execution_error" } });
    expect(result.error).toContain("do not match the handoff receipt");
  });
});

describe("delegate: a parent call that ends", () => {
  it("aborts the driver's signal at its deadline, and a child call made after it is cancelled", async () => {
    let childCall: Promise<unknown> | undefined;
    let sawAbort = false;
    script = (request) =>
      new Promise((resolve) => {
        // The child's model loop is still thinking when the parent's deadline passes.
        request.signal!.addEventListener("abort", () => {
          sawAbort = true;
          childCall = request.callTool("echo", { message: "too late" });
          resolve({});
        });
      });
    const result = await runtime.call({ runId: "parent-deadline", tool: "delegate", input: { agent: "researcher", task: "x" }, deadlineMs: 300 });
    expect(result).toMatchObject({ status: "failed", failure: { kind: "control_plane", reason: "deadline_exceeded", runCanContinue: false } });
    expect(sawAbort).toBe(true);
    await expect(childCall).resolves.toMatchObject({ status: "failed", failure: { kind: "control_plane", reason: "cancelled" } });
  });
});
