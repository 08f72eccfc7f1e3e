/**
 * Built-in and host-provided tools (`CoreTool`) are dispatched in the host with
 * `runtimeBoundary: "host"`, under the same contract: input validation, failure kinds, host
 * core-tool policy (disable, approval gate), plugin `disabled: true`, and the context services.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CoreTool } from "../../runtime-min/core-tools/types.js";
import { openRuntime, ToolCallError, type Runtime } from "../../runtime-min/index.js";
import { seedTools } from "../helpers/support-agent.js";
import { createAgent, editArtifact, type AgentFixture } from "./helpers/agent-fixture.js";

const workspaceNote: CoreTool = {
  name: "workspace_note",
  description: "Writes a note into the workspace through the run's sandbox.",
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"], additionalProperties: false },
  visibility: "visible",
  async execute(input, ctx) {
    if (input.text === "") throw new ToolCallError("invalid_input", "text must not be empty");
    const sandbox = await ctx.getSandbox!();
    await sandbox.writeFile("notes/note.txt", String(input.text));
    const shell = await sandbox.exec("cat notes/note.txt");
    await ctx.emit("workspace_note.written", { bytes: String(input.text).length });
    await ctx.activateTools?.(["history_search"]);
    return { echoed: shell.stdout, surface: ctx.surfaceId };
  },
};
const grepTool: CoreTool = { name: "grep", description: "Search.", inputSchema: { type: "object" }, visibility: "visible", execute: async () => ({}) };
const bashTool: CoreTool = { name: "bash", description: "Shell.", inputSchema: { type: "object" }, visibility: "visible", execute: async () => ({ ran: true }) };

let agent: AgentFixture;
let runtime: Runtime;

beforeAll(async () => {
  agent = await createAgent([{ name: "echo", file: seedTools.echo }]);
  editArtifact(agent, (manifest) => {
    manifest.surfaces["."].disabledCoreTools = ["grep"];
  });
  runtime = await openRuntime({
    root: agent.root,
    hostTools: new Map([workspaceNote, grepTool, bashTool].map((tool) => [tool.name, tool])),
    coreToolPolicy: { approval: { bash: { reason: "Shell commands need a human.", sideEffect: "external" } } },
  });
});

afterAll(async () => {
  await runtime?.close();
  agent?.cleanup();
});

describe("host tools", () => {
  it("run in the host with the run's sandbox and record their events", async () => {
    const result = await runtime.call({ tool: "workspace_note", input: { text: "hello" }, runId: "core-run", callId: "w1" });
    expect(result.status).toBe("ok");
    expect(result.output).toEqual({ echoed: "hello", surface: "." });
    expect(result.events).toEqual([
      { type: "tool.execution_started", tool: "workspace_note", callId: "w1", surface: ".", runtimeBoundary: "host" },
      { type: "workspace_note.written", bytes: 5 },
      { type: "tool.execution_completed", tool: "workspace_note", callId: "w1" },
    ]);
    expect(runtime.activatedTools("core-run")).toEqual(["history_search"]);
  });

  it("validate input and classify ToolCallError", async () => {
    const extra = await runtime.call({ tool: "workspace_note", input: { text: "x", mode: "append" } });
    expect(extra.failure?.kind).toBe("invalid_input");
    expect(extra.error).toBe("Input for tool 'workspace_note' does not match its inputSchema: `mode` is not allowed (the schema accepts no other properties; allowed: text).");
    const typo = await runtime.call({ tool: "workspace_note", input: { txt: "x" } });
    // The missing property and the key given in its place, in one clause (README trial of 6 December).
    expect(typo.error).toBe("Input for tool 'workspace_note' does not match its inputSchema: `text` is required, but the input has `txt`, which the schema does not list (did you mean 'text'?).");
    const empty = await runtime.call({ tool: "workspace_note", input: { text: "" } });
    expect(empty).toMatchObject({ error: "text must not be empty", failure: { kind: "invalid_input", runCanContinue: true } });
  });

  it("honour a plugin's disabled: true and the host's approval gate", async () => {
    const disabled = await runtime.call({ tool: "grep", input: {} });
    expect(disabled.error).toBe("The built-in tool 'grep' is disabled on surface '.' by a plugin (disabled: true), so it cannot be called.");
    const gated = await runtime.call({ tool: "bash", input: {}, runId: "bash-run", callId: "b1" });
    expect(gated.status).toBe("approval_required");
    expect(gated.approval).toEqual({ reason: "Shell commands need a human.", sideEffect: "external", state: "pending" });
    const approved = await runtime.approve({ runId: "bash-run", callId: "b1" });
    expect(approved.output).toEqual({ ran: true });
  });
});
