/**
 * The example agent (every seed example plus a subagent) through the real CLI: it compiles
 * clean, and its tools give the seed's outputs from the artifact, in sandbox processes.
 */
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runCliJson } from "../helpers/run-cli.js";
import { copyAgent } from "../helpers/copy-agent.js";
import { repoRoot } from "../helpers/temp-tree.js";

let root: string;
beforeAll(() => {
  root = copyAgent(path.join(repoRoot, "examples", "support-agent"));
});

const call = (tool: string, input: unknown, extra: string[] = []) => runCliJson(["call", tool, root, "--input", JSON.stringify(input), ...extra]);

describe("examples/support-agent", () => {
  it("compiles clean: no diagnostics at all, lock up to date", () => {
    const { status, json } = runCliJson(["compile", root]);
    expect(status).toBe(0);
    expect(json).toEqual({ ok: true, diagnostics: [], lockfile: "plugins.lock", lockChanged: false, artifact: ".assemblyline/build" });
  });

  it("echo returns the message", () => {
    const { status, json } = call("echo", { message: "hi" });
    expect(status).toBe(0);
    expect(json).toMatchObject({ status: "ok", output: { message: "hi" } });
  });

  it("the factory-built search tool sees { limit: 20, index: 'products' } and the host's SEARCH_API_URL", () => {
    const { json } = call("search", { query: "rain" }, ["--config", "SEARCH_API_URL=https://search.example.com"]);
    expect(json.output).toEqual({ index: "products", limit: 20, endpoint: "https://search.example.com", hits: ["Rain jacket"] });
    const missing = call("search", { query: "rain" });
    expect(missing.status).toBe(1);
    expect(missing.json).toMatchObject({ status: "failed", failure: { kind: "configuration_error", runCanContinue: true } });
    expect(missing.json.error).toContain("SEARCH_API_URL");
  });

  it("toModelOutput: the model sees only the summary", () => {
    expect(call("lookup_record", { lookup: "order 42" }).json.output).toEqual({ summary: "Found order 42" });
  });

  it("RecoverableToolError is invalid_input and the run continues", () => {
    const { status, json } = call("accept_document", { document: "{ incomplete" });
    expect(status).toBe(1);
    expect(json).toMatchObject({ status: "failed", error: "Document is incomplete.", failure: { kind: "invalid_input", runCanContinue: true } });
    expect(json.events.map((e: { type: string }) => e.type)).toEqual(["tool.execution_started", "tool.execution_failed"]);
    expect(call("accept_document", { document: "{}" }).json.output).toEqual({ accepted: true });
  });

  it("the approval gate stops record_note until approved, then it runs once", () => {
    const first = call("record_note", { note: "Call back" }, ["--run", "r-approval", "--call", "c1"]);
    expect(first.status).toBe(0);
    expect(first.json).toMatchObject({ status: "approval_required", approval: { reason: "Recording a note is a durable side effect.", sideEffect: "idempotent" } });
    const approved = runCliJson(["approve", "c1", root, "--run", "r-approval"]);
    expect(approved.json).toMatchObject({ status: "ok", output: { recorded: true } });
    expect(approved.json.events.map((e: { type: string }) => e.type)).toEqual(["tool.approval_granted", "tool.execution_started", "note.recorded", "tool.execution_completed"]);
    const again = runCliJson(["approve", "c1", root, "--run", "r-approval"]);
    expect(again.json).toMatchObject({ status: "ok", alreadyDecided: true, events: [] });
  });

  it("the subagent surface has its own plugin and not the parent's", () => {
    const child = runCliJson(["tools", root, "--surface", "subagents/researcher"]).json.tools.map((t: { name: string }) => t.name);
    expect(child).toContain("format_citation");
    expect(child).not.toContain("echo");
    expect(call("format_citation", { title: "Spec", url: "https://example.com/spec" }, ["--surface", "subagents/researcher"]).json.output).toEqual({
      citation: "Spec <https://example.com/spec>",
    });
  });
});
