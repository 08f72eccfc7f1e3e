import { describe, expect, test } from "vitest";
import {
  ALWAYS_VISIBLE_CORE_TOOLS,
  CORE_TOOL_NAMES,
  CORE_TOOL_SPECS,
  DEFERRED_CORE_TOOLS,
  UnknownSurfaceError,
  buildSnapshot,
  createToolResolver,
  resolveTool,
} from "../../runtime-min/snapshot/index.js";
import { authoredTool, fixtureManifest } from "./fixture-manifest.js";

const CORE_VISIBLE_SORTED = [...ALWAYS_VISIBLE_CORE_TOOLS].sort();

describe("core tool catalog", () => {
  test("the always-visible core set is exactly the seed's fourteen tools", () => {
    expect([...ALWAYS_VISIBLE_CORE_TOOLS].sort()).toEqual(
      ["bash", "delete", "deliver_artifact", "edit", "files_mount", "files_search", "grep", "handoff_artifact", "list", "load_skill", "pair", "read", "tool_search", "write"],
    );
    expect(CORE_TOOL_SPECS.filter((spec) => spec.visibility === "visible").map((spec) => spec.name)).toEqual(CORE_VISIBLE_SORTED);
  });

  test("history_search and the workspace tools are deferred", () => {
    expect(CORE_TOOL_SPECS.filter((spec) => spec.visibility === "deferred").map((spec) => spec.name)).toEqual([...DEFERRED_CORE_TOOLS].sort());
    expect(DEFERRED_CORE_TOOLS).toEqual(["history_search", "workspace_info", "workspace_snapshot"]);
  });

  test("every core tool has an object input schema and names are sorted", () => {
    expect(CORE_TOOL_NAMES).toEqual([...CORE_TOOL_NAMES].sort());
    for (const spec of CORE_TOOL_SPECS) expect(spec.inputSchema.type).toBe("object");
  });
});

describe("buildSnapshot", () => {
  test("root surface: core set plus its visible plugin tools; deferred and hidden are not loaded", () => {
    const snapshot = buildSnapshot({ manifest: fixtureManifest(), surfaceId: "." });
    // The root has a subagent, so the framework's delegate tool is visible too (issue 13 item 1).
    expect(snapshot.tools.map((tool) => tool.name)).toEqual([...CORE_VISIBLE_SORTED, "delegate", "echo"].sort());
    const echo = snapshot.tools.find((tool) => tool.name === "echo");
    expect(echo).toEqual({
      name: "echo",
      description: "Echo a message back to the caller.",
      inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] },
      source: "plugin:example",
      visibility: "visible",
    });
    expect(snapshot.tools.find((tool) => tool.name === "read")?.source).toBe("core");
    expect(snapshot.catalog.map((tool) => tool.name)).toEqual(
      [...CORE_VISIBLE_SORTED, "delegate", "echo", "history_search", "invoice_lookup", "workspace_info", "workspace_snapshot"].sort(),
    );
    expect(snapshot.hidden).toEqual(["audit_log"]);
    expect(snapshot.disabled).toEqual([]);
    expect(snapshot.warnings).toEqual([]);
  });

  test("child surface: framework defaults plus its own plugins only, never its parent's", () => {
    const snapshot = buildSnapshot({ manifest: fixtureManifest(), surfaceId: "subagents/researcher" });
    const names = snapshot.tools.map((tool) => tool.name);
    expect(names).toEqual([...CORE_VISIBLE_SORTED.filter((name) => name !== "bash"), "web_fetch"].sort());
    const catalogNames = snapshot.catalog.map((tool) => tool.name);
    expect(catalogNames).toContain("summarize");
    for (const parentTool of ["echo", "invoice_lookup", "audit_log"]) {
      expect(catalogNames).not.toContain(parentTool);
      expect(snapshot.hidden).not.toContain(parentTool);
    }
  });

  test("a plugin's disabled: true removes bash from that surface only", () => {
    const manifest = fixtureManifest();
    const child = buildSnapshot({ manifest, surfaceId: "subagents/researcher" });
    expect(child.tools.map((tool) => tool.name)).not.toContain("bash");
    expect(child.catalog.map((tool) => tool.name)).not.toContain("bash");
    expect(child.disabled).toEqual([{ name: "bash", by: "plugin" }]);
    expect(resolveTool({ manifest, surfaceId: "subagents/researcher" }, "bash")).toMatchObject({ kind: "disabled", by: "plugin" });
    expect(buildSnapshot({ manifest, surfaceId: "." }).tools.map((tool) => tool.name)).toContain("bash");
  });

  test("an authored tool replaces a core default only when a plugin disabled it", () => {
    const manifest = fixtureManifest();
    const researcher = manifest.surfaces["subagents/researcher"];
    const root = manifest.surfaces["."];
    if (!researcher || !root) throw new Error("fixture");
    const replaced = { ...manifest, surfaces: { ...manifest.surfaces, "subagents/researcher": { ...researcher, tools: { ...researcher.tools, bash: authoredTool("safe-shell", { description: "A restricted shell." }) } } } };
    const snapshot = buildSnapshot({ manifest: replaced, surfaceId: "subagents/researcher" });
    expect(snapshot.tools.find((tool) => tool.name === "bash")).toMatchObject({ source: "plugin:safe-shell", description: "A restricted shell." });
    expect(resolveTool({ manifest: replaced, surfaceId: "subagents/researcher" }, "bash").kind).toBe("authored");

    const shadowing = { ...manifest, surfaces: { ...manifest.surfaces, ".": { ...root, tools: { ...root.tools, read: authoredTool("sneaky") } } } };
    const rootSnapshot = buildSnapshot({ manifest: shadowing, surfaceId: "." });
    expect(rootSnapshot.tools.find((tool) => tool.name === "read")?.source).toBe("core");
    expect(rootSnapshot.warnings).toEqual([expect.objectContaining({ code: "authored_shadows_core", name: "read" })]);
  });

  test("host core-tool policy disables and approval-gates built-ins without touching agent source", () => {
    const manifest = fixtureManifest();
    const options = {
      manifest,
      surfaceId: ".",
      coreToolPolicy: { disabled: ["delete"], approval: { bash: { reason: "Shell commands need review.", sideEffect: "external" }, echo: { reason: "x", sideEffect: "external" } } },
    };
    const snapshot = buildSnapshot(options);
    expect(snapshot.tools.map((tool) => tool.name)).not.toContain("delete");
    expect(snapshot.disabled).toEqual([{ name: "delete", by: "host" }]);
    expect(snapshot.warnings).toEqual([expect.objectContaining({ code: "unknown_policy_tool", name: "echo" })]);
    const resolve = createToolResolver(options);
    expect(resolve("delete")).toMatchObject({ kind: "disabled", by: "host" });
    expect(resolve("bash")).toEqual({ kind: "core", name: "bash", visibility: "visible", loaded: true, implementer: "runtime", approval: { reason: "Shell commands need review.", sideEffect: "external" } });
    expect(resolve("read")).toEqual({ kind: "core", name: "read", visibility: "visible", loaded: true, implementer: "runtime" });
    // Host policy never changes an authored tool's locked approval.
    expect(resolve("echo")).not.toHaveProperty("approval");
  });

  test("a host approval rule without a side effect gets the seed's default, external", () => {
    const options = { manifest: fixtureManifest(), surfaceId: ".", coreToolPolicy: { approval: { write: { reason: "Writes need a human." } as { reason: string; sideEffect: string } } } };
    expect(createToolResolver(options)("write")).toMatchObject({ approval: { reason: "Writes need a human.", sideEffect: "external" } });
  });

  test("useTool promotes known deferred tools; hidden and unknown names are reported, not promoted", () => {
    const snapshot = buildSnapshot({ manifest: fixtureManifest(), surfaceId: ".", promoted: ["invoice_lookup", "workspace_info", "audit_log", "no_such_tool", "read"] });
    const names = snapshot.tools.map((tool) => tool.name);
    expect(names).toContain("invoice_lookup");
    expect(names).toContain("workspace_info");
    expect(names).not.toContain("audit_log");
    expect(snapshot.tools.find((tool) => tool.name === "invoice_lookup")).toMatchObject({ visibility: "deferred", inputSchema: { type: "object", properties: {} } });
    expect(snapshot.warnings.map((warning) => [warning.code, warning.name])).toEqual([
      ["promotion_not_allowed", "audit_log"],
      ["unknown_promotion", "no_such_tool"],
    ]);
  });

  test("tools activated by tool_search appear with full schemas in the next snapshot", () => {
    const manifest = fixtureManifest();
    const before = buildSnapshot({ manifest, surfaceId: "subagents/researcher" });
    expect(before.tools.map((tool) => tool.name)).not.toContain("summarize");
    const after = buildSnapshot({ manifest, surfaceId: "subagents/researcher", activated: ["summarize", "audit_log"] });
    expect(after.tools.find((tool) => tool.name === "summarize")).toEqual({
      name: "summarize",
      description: "Summarise a long text.",
      inputSchema: { type: "object", properties: {} },
      source: "plugin:research",
      visibility: "deferred",
    });
    expect(after.warnings).toEqual([expect.objectContaining({ code: "unknown_activation", name: "audit_log" })]);
  });

  test("unknown surface ids throw with the available surfaces and a suggestion", () => {
    expect(() => buildSnapshot({ manifest: fixtureManifest(), surfaceId: "subagents/researchr" })).toThrow(UnknownSurfaceError);
    expect(() => buildSnapshot({ manifest: fixtureManifest(), surfaceId: "subagents/researchr" })).toThrow(/Did you mean "subagents\/researcher"/);
    expect(() => buildSnapshot({ manifest: fixtureManifest(), surfaceId: "__proto__" })).toThrow(UnknownSurfaceError);
  });
});

describe("resolveTool", () => {
  const manifest = fixtureManifest();
  const resolve = createToolResolver({ manifest, surfaceId: "." });

  test("authored tools carry their capability, loaded state and locked approval", () => {
    expect(resolve("echo")).toMatchObject({ kind: "authored", capability: "example", visibility: "visible", loaded: true });
    expect(resolve("invoice_lookup")).toMatchObject({ kind: "authored", visibility: "deferred", loaded: false, approval: { reason: "Reads billing data.", sideEffect: "idempotent" } });
    expect(resolveTool({ manifest, surfaceId: ".", activated: ["invoice_lookup"] }, "invoice_lookup")).toMatchObject({ loaded: true });
  });

  test("hidden tools resolve for the host but are never suggested", () => {
    expect(resolve("audit_log")).toMatchObject({ kind: "hidden", capability: "billing" });
    const near = resolve("audit_lo");
    expect(near.kind).toBe("unknown");
    if (near.kind === "unknown") expect(near.suggestions).not.toContain("audit_log");
  });

  test("host-implemented built-ins say so", () => {
    expect(resolve("pair")).toMatchObject({ kind: "core", implementer: "host", visibility: "visible" });
    expect(resolve("history_search")).toMatchObject({ kind: "core", implementer: "host", visibility: "deferred", loaded: false });
  });

  test("unknown names get did-you-mean suggestions from listed tools", () => {
    const result = resolve("reed");
    expect(result).toMatchObject({ kind: "unknown", name: "reed" });
    if (result.kind === "unknown") {
      expect(result.suggestions[0]).toBe("read");
      expect(result.message).toContain('Did you mean "read"');
    }
    expect(resolve("web_fetch").kind).toBe("unknown"); // a child's tool is not the root's
    expect(resolve("constructor").kind).toBe("unknown");
  });
});
