/**
 * The capability snapshot and tool_search wired into the runtime (issue 5): `runtime.snapshot`,
 * `runtime.useTool`, `runtime.search`, the `tool_search` core tool in a run, and dispatch
 * through the snapshot's resolver (hidden tools callable, disabled ones refused, no hidden
 * names in "did you mean").
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ALWAYS_VISIBLE_CORE_TOOLS } from "../../runtime-min/snapshot/index.js";
import { openRuntime, RuntimeError, type Runtime } from "../../runtime-min/index.js";
import { ECHO_SCHEMA, LEDGER_TOOLS, createCatalogAgent } from "./catalog-fixture.js";
import type { AgentFixture } from "./helpers/agent-fixture.js";

const CHILD = "subagents/researcher";
const CORE_VISIBLE = [...ALWAYS_VISIBLE_CORE_TOOLS].sort();
const names = (tools: readonly { name: string }[]): string[] => tools.map((tool) => tool.name);

let agent: AgentFixture;
let runtime: Runtime;

beforeAll(async () => {
  agent = await createCatalogAgent();
  runtime = await openRuntime({ root: agent.root });
});

afterAll(async () => {
  await runtime?.close();
  agent?.cleanup();
});

describe("runtime.snapshot", () => {
  it("root: the always-visible core set plus the root's visible plugin tools, with full schemas", () => {
    const snapshot = runtime.snapshot();
    // The root has a subagent, so the framework's delegate tool is visible too (issue 13 item 1).
    expect(names(snapshot.tools)).toEqual([...CORE_VISIBLE, "delegate", "echo"].sort());
    expect(snapshot.tools.find((tool) => tool.name === "echo")).toEqual({
      name: "echo",
      description: "Echo a message back to the caller.",
      inputSchema: ECHO_SCHEMA,
      source: "plugin:example",
      visibility: "visible",
    });
    expect(snapshot.tools.find((tool) => tool.name === "grep")).toMatchObject({ source: "core", visibility: "visible", inputSchema: { type: "object" } });
    // Deferred framework and plugin tools are findable, not loaded; hidden ones are neither.
    expect(names(snapshot.catalog)).toEqual(expect.arrayContaining(["history_search", "workspace_info", "workspace_snapshot", ...LEDGER_TOOLS, "fetch_bill"]));
    expect(names(snapshot.tools)).not.toContain("history_search");
    expect(names(snapshot.catalog)).not.toContain("audit_log");
    expect(snapshot.hidden).toEqual(["audit_log"]);
  });

  it("child: the framework defaults plus its own plugins only, and its plugin removed bash", () => {
    const snapshot = runtime.snapshot({ surface: CHILD });
    expect(names(snapshot.tools)).toEqual([...CORE_VISIBLE.filter((name) => name !== "bash"), "web_fetch"].sort());
    expect(names(snapshot.catalog)).toContain("summarize");
    for (const parentTool of ["echo", "ledger_export_01", "fetch_bill", "audit_log"]) expect(names(snapshot.catalog)).not.toContain(parentTool);
    expect(snapshot.hidden).toEqual([]);
    expect(snapshot.disabled).toEqual([{ name: "bash", by: "plugin" }]);
  });

  it("refuses an unknown surface with AL8020", () => {
    expect(() => runtime.snapshot({ surface: "subagents/nobody" })).toThrow(expect.objectContaining({ code: "AL8020" }));
    // The known surfaces are quoted, so the root's '.' reads as a name.
    expect(() => runtime.snapshot({ surface: "subagents/nobody" })).toThrow(/Surfaces: '\.'(, '[^']+')*\.$/);
  });
});

describe("bash removed by a plugin on the child surface", () => {
  it("is neither listed nor found nor callable there, and stays on the root", async () => {
    expect(names(runtime.search("shell command", { surface: CHILD, limit: 20 }).tools)).not.toContain("bash");
    const refused = await runtime.call({ surface: CHILD, tool: "bash", input: { command: "echo hi" } });
    expect(refused).toMatchObject({ status: "failed", failure: { kind: "invalid_input", runCanContinue: true } });
    expect(refused.error).toBe(`The built-in tool 'bash' is disabled on surface '${CHILD}' by a plugin (disabled: true), so it cannot be called.`);
    const root = await runtime.call({ tool: "bash", input: { command: "printf hi" } });
    expect(root).toMatchObject({ status: "ok", output: { exitCode: 0, stdout: "hi" } });
  });
});

describe("runtime.search paging over 25 deferred tools", () => {
  it("returns 8, then the next 8 from nextOffset, until hasMore is false", () => {
    const seen: string[] = [];
    let offset: number | undefined = 0;
    const pages: { size: number; hasMore: boolean; nextOffset?: number; totalMatches: number }[] = [];
    while (offset !== undefined) {
      const page = runtime.search("ledger", { offset });
      pages.push({ size: page.tools.length, hasMore: page.hasMore, totalMatches: page.totalMatches, ...(page.nextOffset === undefined ? {} : { nextOffset: page.nextOffset }) });
      seen.push(...names(page.tools));
      offset = page.nextOffset;
    }
    expect(pages).toEqual([
      { size: 8, hasMore: true, nextOffset: 8, totalMatches: 25 },
      { size: 8, hasMore: true, nextOffset: 16, totalMatches: 25 },
      { size: 8, hasMore: true, nextOffset: 24, totalMatches: 25 },
      { size: 1, hasMore: false, totalMatches: 25 },
    ]);
    expect(seen).toEqual(LEDGER_TOOLS);
  });

  it("caps limit 50 at 20 and refuses a bad offset with AL8027", () => {
    const first = runtime.search("ledger", { limit: 50 });
    expect(first).toMatchObject({ totalMatches: 25, hasMore: true, nextOffset: 20 });
    expect(first.tools).toHaveLength(20);
    const rest = runtime.search("ledger", { limit: 50, offset: 20 });
    expect(names(rest.tools)).toEqual(LEDGER_TOOLS.slice(20));
    expect(rest.hasMore).toBe(false);
    expect(rest.nextOffset).toBeUndefined();
    expect(() => runtime.search("ledger", { offset: -1 })).toThrow(expect.objectContaining({ code: "AL8027" }));
  });

  it("ranks tools whose alias or tag the query names first", () => {
    const page = runtime.search("invoice");
    expect(names(page.tools).slice(0, 2)).toEqual(["fetch_bill", "send_reminder"]); // alias (tier 2), then tag (tier 1)
    expect(names(page.tools)).toContain("invoice_notes");
    expect(names(page.tools).indexOf("invoice_notes")).toBe(2);
  });

  it("browses everything listed with an empty query, never a hidden tool", () => {
    const all: string[] = [];
    let offset: number | undefined = 0;
    while (offset !== undefined) {
      const page = runtime.search("", { offset, limit: 20 });
      all.push(...names(page.tools));
      offset = page.nextOffset;
    }
    expect(all).toEqual(names(runtime.snapshot().catalog));
    for (const query of ["audit", "audit_log", "billing audit log", "invoice", "ledger"]) {
      expect(names(runtime.search(query, { limit: 20 }).tools)).not.toContain("audit_log");
    }
  });
});

describe("tool_search in a run", () => {
  it("pages like runtime.search and activates only the returned pages for the run's next snapshot", async () => {
    const runId = "search-run";
    const first = await runtime.call({ tool: "tool_search", input: { query: "ledger" }, runId, callId: "s1" });
    expect(first.status).toBe("ok");
    const firstPage = first.output as { tools: { name: string; visibility: string }[]; totalMatches: number; hasMore: boolean; nextOffset?: number };
    expect(firstPage).toMatchObject({ totalMatches: 25, hasMore: true, nextOffset: 8 });
    expect(names(firstPage.tools)).toEqual(LEDGER_TOOLS.slice(0, 8));
    expect(first.events.map((event) => event.type)).toEqual(["tool.execution_started", "tool_search.activated", "tool.execution_completed"]);

    const second = await runtime.call({ tool: "tool_search", input: { query: "ledger", offset: firstPage.nextOffset }, runId, callId: "s2" });
    const secondPage = second.output as typeof firstPage;
    expect(names(secondPage.tools)).toEqual(LEDGER_TOOLS.slice(8, 16));
    expect(secondPage.nextOffset).toBe(16);

    const capped = await runtime.call({ tool: "tool_search", input: { query: "ledger", limit: 50, offset: 16 }, runId: "other-run", callId: "s3" });
    expect(capped.output).toMatchObject({ totalMatches: 25, hasMore: false });
    expect(names((capped.output as typeof firstPage).tools)).toEqual(LEDGER_TOOLS.slice(16));
    expect((capped.output as typeof firstPage).nextOffset).toBeUndefined();
    const twenty = await runtime.call({ tool: "tool_search", input: { query: "ledger", limit: 50 }, runId: "third-run", callId: "s4" });
    expect((twenty.output as typeof firstPage).tools).toHaveLength(20);

    const next = runtime.snapshot({ runId });
    const activated = next.tools.filter((tool) => tool.name.startsWith("ledger_export_"));
    expect(names(activated)).toEqual(LEDGER_TOOLS.slice(0, 16));
    expect(activated[0]).toEqual({ name: "ledger_export_01", description: "Export the ledger of region 1 as CSV.", inputSchema: ECHO_SCHEMA, source: "plugin:ledger", visibility: "deferred" });
    expect(runtime.activatedTools(runId)).toEqual(LEDGER_TOOLS.slice(0, 16));
    // Activation belongs to the run: a fresh snapshot and another run's snapshot do not have them.
    expect(names(runtime.snapshot().tools)).not.toContain("ledger_export_01");
    expect(names(runtime.snapshot({ runId: "other-run" }).tools).filter((name) => name.startsWith("ledger_"))).toEqual(LEDGER_TOOLS.slice(16));
  });

  it("runtime.search with runId activates its page the same way", () => {
    const page = runtime.search("invoice", { runId: "host-search-run", limit: 2 });
    expect(page.activated).toEqual(["fetch_bill", "send_reminder"]);
    expect(names(runtime.snapshot({ runId: "host-search-run" }).tools)).toEqual(expect.arrayContaining(["fetch_bill", "send_reminder"]));
    expect(names(runtime.snapshot({ runId: "host-search-run" }).tools)).not.toContain("invoice_notes");
    expect(runtime.events("host-search-run")).toEqual([{ type: "tool_search.activated", names: ["fetch_bill", "send_reminder"] }]);
  });
});

describe("hidden tools", () => {
  it("are callable by the host but never suggested for a near miss", async () => {
    const called = await runtime.call({ tool: "audit_log", input: { message: "entry" } });
    expect(called).toMatchObject({ status: "ok", output: { message: "entry" } });
    const miss = await runtime.call({ tool: "audit_lg", input: {} });
    expect(miss.failure?.kind).toBe("invalid_input");
    expect(miss.error).toBe("There is no tool 'audit_lg' on surface '.'. Use tool_search to find tools.");
    const near = await runtime.call({ tool: "ecoh", input: {} });
    expect(near.error).toBe("There is no tool 'ecoh' on surface '.'. Did you mean 'echo'?");
  });

  it("cannot be promoted", () => {
    expect(() => runtime.useTool("audit_log")).toThrow(expect.objectContaining({ code: "AL8026", message: expect.stringContaining("hidden") }));
  });
});

describe("runtime.useTool", () => {
  it("promotes a known deferred tool into this runtime's initial snapshot", async () => {
    const promotedRuntime = await openRuntime({ root: agent.root });
    try {
      expect(promotedRuntime.useTool("ledger_export_07")).toEqual({
        name: "ledger_export_07",
        description: "Export the ledger of region 7 as CSV.",
        inputSchema: ECHO_SCHEMA,
        source: "plugin:ledger",
        visibility: "deferred",
      });
      expect(promotedRuntime.useTool("history_search")).toMatchObject({ name: "history_search", source: "core", visibility: "deferred" });
      expect(names(promotedRuntime.snapshot().tools)).toEqual(expect.arrayContaining(["ledger_export_07", "history_search"]));
      expect(names(promotedRuntime.snapshot({ surface: CHILD }).tools)).not.toContain("ledger_export_07");
      expect(promotedRuntime.useTool("echo").name).toBe("echo");
      expect(() => promotedRuntime.useTool("ledger_export_7")).toThrow(expect.objectContaining({ code: "AL8026", message: expect.stringContaining("did you mean 'ledger_export_07'") }));
      expect(() => promotedRuntime.useTool("bash", { surface: CHILD })).toThrow(expect.objectContaining({ code: "AL8026", message: expect.stringContaining("disabled it") }));
      expect(() => promotedRuntime.useTool("echo", { surface: CHILD })).toThrow(RuntimeError);
    } finally {
      await promotedRuntime.close();
    }
    // Another runtime never saw the promotion.
    expect(names(runtime.snapshot().tools)).not.toContain("ledger_export_07");
  });
});

describe("host core-tool policy", () => {
  it("disables a built-in and approval-gates another without touching agent source", async () => {
    const policed = await openRuntime({
      root: agent.root,
      coreToolPolicy: { disabled: ["grep"], approval: { write: { reason: "Writes need a human.", sideEffect: "idempotent" } } },
    });
    try {
      const snapshot = policed.snapshot();
      expect(names(snapshot.tools)).not.toContain("grep");
      expect(snapshot.disabled).toEqual([{ name: "grep", by: "host" }]);
      expect(names(policed.search("find in files regular expression", { limit: 20 }).tools)).not.toContain("grep");
      const grep = await policed.call({ tool: "grep", input: { pattern: "x" } });
      expect(grep.error).toBe("The built-in tool 'grep' is disabled by the host's core-tool policy, so it cannot be called.");

      const gated = await policed.call({ tool: "write", input: { path: "/workspace/note.txt", content: "approved" }, runId: "policy-run", callId: "w1" });
      expect(gated).toMatchObject({ status: "approval_required", approval: { reason: "Writes need a human.", sideEffect: "idempotent", state: "pending" } });
      const before = await policed.call({ tool: "read", input: { path: "/workspace/note.txt" }, runId: "policy-run" });
      expect(before.status).toBe("failed");
      const approved = await policed.approve({ runId: "policy-run", callId: "w1" });
      expect(approved).toMatchObject({ status: "ok", approval: { state: "approved" } });
      const after = await policed.call({ tool: "read", input: { path: "/workspace/note.txt" }, runId: "policy-run" });
      expect(JSON.stringify(after.output)).toContain("approved");
    } finally {
      await policed.close();
    }
    // The same agent without the policy: grep is back and write is not gated.
    expect(names(runtime.snapshot().tools)).toContain("grep");
    expect((await runtime.call({ tool: "write", input: { path: "/workspace/free.txt", content: "x" } })).status).toBe("ok");
  });
});

describe("host-provided built-ins", () => {
  it("get the call's signal, aborted when the call's deadline ends it; their late failure is not recorded", async () => {
    let aborted: unknown;
    const hosted = await openRuntime({
      root: agent.root,
      hostImplementations: {
        // Stops at once when the call ends, as the built-ins do: its rejection must not be
        // recorded as the tool's own failure beside the run's end.
        history_search: (_input, ctx) =>
          new Promise((_resolve, reject) => {
            ctx.signal!.addEventListener("abort", () => {
              aborted = ctx.signal!.aborted;
              reject(ctx.signal!.reason);
            });
          }),
      },
    });
    try {
      await hosted.call({ tool: "write", input: { path: "/workspace/warm.txt", content: "x" }, runId: "warm" }); // the validator is loaded
      const found = await hosted.call({ tool: "history_search", input: { query: "refund" }, deadlineMs: 200, runId: "late-failure" });
      expect(found).toMatchObject({ status: "failed", failure: { kind: "control_plane", reason: "deadline_exceeded" } });
      expect(aborted).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(hosted.events("late-failure").map((event) => event.type)).toEqual(["tool.execution_started", "run.ended"]);
      expect(hosted.callRecord("late-failure", found.callId)).toMatchObject({ status: "failed", failureKind: "control_plane" });
    } finally {
      await hosted.close();
    }
  });

  it("do not start when the call was cancelled before its tool was to start", async () => {
    let called = false;
    const hosted = await openRuntime({
      root: agent.root,
      hostImplementations: {
        history_search: async () => {
          called = true;
          return { hits: [] };
        },
      },
    });
    try {
      // The host cancels while the runtime reads the call's input (the getter runs when the
      // input is copied): the run ends there, and the tool must not start afterwards.
      const controller = new AbortController();
      const input = {
        get query() {
          controller.abort();
          return "refund";
        },
      };
      const found = await hosted.call({ tool: "history_search", input, signal: controller.signal, runId: "ended-before-start" });
      expect(found).toMatchObject({ status: "failed", failure: { kind: "control_plane", reason: "cancelled" } });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(called).toBe(false);
      expect(hosted.events("ended-before-start").map((event) => event.type)).toEqual(["run.ended"]);
    } finally {
      await hosted.close();
    }
  });

  it("fail with configuration_error naming the service until the host supplies an implementation", async () => {
    const pair = await runtime.call({ tool: "pair", input: { packet: "abc" } });
    expect(pair).toMatchObject({ status: "failed", failure: { kind: "configuration_error", runCanContinue: true } });
    expect(pair.error).toContain("it needs a connection pairing service");
    const hosted = await openRuntime({ root: agent.root, hostImplementations: { history_search: async (input) => ({ hits: [`found ${String(input.query)}`] }) } });
    try {
      const found = await hosted.call({ tool: "history_search", input: { query: "refund" } });
      expect(found).toMatchObject({ status: "ok", output: { hits: ["found refund"] } });
      expect(found.events[0]).toMatchObject({ type: "tool.execution_started", runtimeBoundary: "host" });
    } finally {
      await hosted.close();
    }
  });

  it("a failed core tool's error shows the cause chain, as an authored tool's does (helper-79's thrown-message.ts)", async () => {
    const hosted = await openRuntime({
      root: agent.root,
      hostImplementations: {
        history_search: async () => {
          throw new TypeError("fetch failed", { cause: new Error("getaddrinfo ENOTFOUND history.invalid", { cause: new Error("DNS lookup timed out") }) });
        },
      },
    });
    try {
      const found = await hosted.call({ tool: "history_search", input: { query: "refund" } });
      expect(found).toMatchObject({ status: "failed", failure: { kind: "execution_error", runCanContinue: true } });
      expect(found.error).toBe("fetch failed (cause: getaddrinfo ENOTFOUND history.invalid; caused by: DNS lookup timed out)");
    } finally {
      await hosted.close();
    }
  });
});
