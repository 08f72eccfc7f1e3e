/**
 * `assembly-line tools` and `assembly-line search` (DESIGN §7; issue 5 item 4): the snapshot
 * the model starts with and one ranked page, as JSON and for people, with exit codes 0/1/2.
 * Most cases call the command functions in-process; one spawns the CLI to check the wiring.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSearchCommand } from "../../cli/commands/search.js";
import { runToolsCommand } from "../../cli/commands/tools.js";
import { formatSearch, formatTools } from "../../cli/format-catalog.js";
import { ALWAYS_VISIBLE_CORE_TOOLS } from "../../runtime-min/snapshot/index.js";
import type { CatalogTool } from "../../runtime-min/snapshot/types.js";
import { ECHO_SCHEMA, LEDGER_TOOLS, createCatalogAgent } from "./catalog-fixture.js";
import type { AgentFixture } from "./helpers/agent-fixture.js";
import { printedCli, runCli } from "../helpers/run-cli.js";
import { repoRoot, tempDir } from "../helpers/temp-tree.js";
import { runSourceCli, runSourceCliWithEnv } from "./helpers/run-source-cli.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";

/** AL8046's hint, as the catalogue states it. */
const UNKNOWN_RUN_HINT = Diagnostics.CatalogRunUnknown.hint;

const CHILD = "subagents/researcher";
const CORE_VISIBLE = [...ALWAYS_VISIBLE_CORE_TOOLS].sort();
let agent: AgentFixture;

beforeAll(async () => {
  agent = await createCatalogAgent();
});

afterAll(() => agent?.cleanup());

const toolNames = (stdout: string): string[] => (JSON.parse(stdout) as { tools: { name: string }[] }).tools.map((tool) => tool.name);

describe("assembly-line tools", () => {
  it("prints exactly { tools, tokens } with name, description, inputSchema, source, visibility and tokens (DESIGN §7), then the host command's diagnostics and lockChanged", async () => {
    const output = await runToolsCommand({ root: agent.root, format: "json" });
    expect(output.exitCode).toBe(0);
    const json = JSON.parse(output.stdout) as { tools: Record<string, unknown>[]; tokens: number };
    expect(Object.keys(json)).toEqual(["tools", "tokens", "diagnostics", "lockChanged"]);
    // No compile-first step ran (no hook) and nothing warned (docs/cli.md, cli/commands/host-report.ts).
    expect(json).toMatchObject({ diagnostics: [], lockChanged: false });
    expect(json.tools.map((tool) => tool.name)).toEqual([...CORE_VISIBLE, "delegate", "echo"].sort());
    for (const tool of json.tools) expect(Object.keys(tool)).toEqual(["name", "description", "inputSchema", "source", "visibility", "tokens"]);
    expect(json.tools.find((tool) => tool.name === "echo")).toEqual({ name: "echo", description: "Echo a message back to the caller.", inputSchema: ECHO_SCHEMA, source: "plugin:example", visibility: "visible", tokens: 42 });
    expect(json.tokens).toBe(json.tools.reduce((sum, tool) => sum + (tool.tokens as number), 0));
    expect(output.stdout).not.toContain("audit_log");
  });

  it("prints the child surface's own snapshot, without bash", async () => {
    const output = await runToolsCommand({ root: agent.root, surface: CHILD, format: "json" });
    expect(output.exitCode).toBe(0);
    expect(toolNames(output.stdout)).toEqual([...CORE_VISIBLE.filter((name) => name !== "bash"), "web_fetch"].sort());
  });

  it("prints a readable list with the deferred and disabled tools, never the hidden one", async () => {
    const output = await runToolsCommand({ root: agent.root, surface: CHILD });
    expect(output.exitCode).toBe(0);
    expect(output.stdout).toContain("web_fetch");
    expect(output.stdout).toContain("plugin:research");
    expect(output.stdout).toMatch(/deferred tools? to find with tool_search.*summarize/);
    // The printed search command finds the first deferred tool by name, on the same surface
    // (`search ''` would open on a page of visible tools).
    const [, first] = /tool_search \(`npx assembly-line search (\S+) /.exec(output.stdout)!;
    expect(output.stdout).toContain(`search ${first} ${agent.root} --surface ${CHILD}\` finds the first`);
    expect(output.stdout).toMatch(new RegExp(`tool_search would\\): ${first},`));
    expect(output.stdout).toContain("disabled built-ins: bash (by a plugin)");
    const root = await runToolsCommand({ root: agent.root });
    expect(root.stdout).not.toContain("audit_log");
  });

  it("lines the descriptions up in one column, whatever the length of the sources", () => {
    const tool = (name: string, source: string, description: string): CatalogTool => ({ name, source: source as CatalogTool["source"], description, inputSchema: { type: "object" }, visibility: "visible", tags: [], aliases: [] });
    const tools = [tool("read", "framework", "Read a file."), tool("lookup", "plugin:customer-relationship-tools", "Look a customer up."), tool("x", "plugin:p", "Do x.")];
    const text = formatTools({ surfaceId: ".", tools, catalog: tools, hidden: [], disabled: [], warnings: [] });
    const columns = tools.map((t) => text.split("\n").find((line) => line.startsWith(`  ${t.name} `))!.indexOf(t.description));
    expect(new Set(columns).size).toBe(1);
  });

  // helper-89's review, finding 6: a description's escape sequences reached the terminal raw.
  it("shows a description's and a tag's control characters as pictures in tools and search", () => {
    const tool: CatalogTool = { name: "evil", source: "plugin:evil", description: "Safe.\u001b[2K\rHarmless\u009b", inputSchema: { type: "object" }, visibility: "visible", tags: ["a\u001bb"], aliases: [] };
    const tools = formatTools({ surfaceId: ".", tools: [tool], catalog: [tool], hidden: [], disabled: [], warnings: [] });
    const search = formatSearch({ tools: [tool], totalMatches: 1, hasMore: false }, "evil", 0);
    for (const text of [tools, search]) {
      expect(text).not.toMatch(/[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/);
      expect(text).toContain("Safe.␛[2K␍Harmless\uFFFD");
    }
    expect(search).toContain("tags: a␛b");
  });

  it("exits 2 for an unknown surface and 1 for a missing artifact", async () => {
    const unknown = await runToolsCommand({ root: agent.root, surface: "subagents/nobody", format: "json" });
    expect(unknown.exitCode).toBe(2);
    // The failure shape of the non-call commands: { ok: false, diagnostics }, as compile and validate print.
    expect(JSON.parse(unknown.stdout)).toEqual({ ok: false, diagnostics: [expect.objectContaining({ code: "AL8020" })], lockChanged: false });
    const empty = fs.mkdtempSync(path.join(agent.root, "empty-"));
    const missing = await runToolsCommand({ root: empty });
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toContain("AL8001");
  });

  it("calls ensureArtifact first and stops on its errors", async () => {
    const seen: string[] = [];
    const output = await runToolsCommand(
      { root: agent.root, format: "json" },
      {
        ensureArtifact: async (root) => {
          seen.push(root);
          return { diagnostics: [{ code: "AL1001", severity: "error", message: "agent.md is missing.", file: "agent.md", line: 1, column: 1 }], lockChanged: false };
        },
      },
    );
    expect(seen).toEqual([agent.root]);
    expect(output.exitCode).toBe(1);
    expect(JSON.parse(output.stdout).diagnostics[0].code).toBe("AL1001");
  });
});

describe("assembly-line search", () => {
  it("pages over 25 deferred tools: 8, the next 8 from nextOffset, and hasMore false at the end", async () => {
    const pages: unknown[] = [];
    const seen: string[] = [];
    let offset: number | undefined = 0;
    while (offset !== undefined) {
      const output = await runSearchCommand({ query: "ledger", root: agent.root, offset: String(offset), format: "json" });
      expect(output.exitCode).toBe(0);
      const page = JSON.parse(output.stdout) as { tools: { name: string }[]; totalMatches: number; hasMore: boolean; nextOffset?: number };
      pages.push({ size: page.tools.length, totalMatches: page.totalMatches, hasMore: page.hasMore, nextOffset: page.nextOffset });
      seen.push(...page.tools.map((tool) => tool.name));
      offset = page.nextOffset;
    }
    expect(pages).toEqual([
      { size: 8, totalMatches: 25, hasMore: true, nextOffset: 8 },
      { size: 8, totalMatches: 25, hasMore: true, nextOffset: 16 },
      { size: 8, totalMatches: 25, hasMore: true, nextOffset: 24 },
      { size: 1, totalMatches: 25, hasMore: false, nextOffset: undefined },
    ]);
    expect(seen).toEqual(LEDGER_TOOLS);
  });

  it("caps --limit 50 at 20 and prints each tool with its schema, tags and aliases", async () => {
    const output = await runSearchCommand({ query: "ledger", root: agent.root, limit: "50", format: "json" });
    const page = JSON.parse(output.stdout);
    expect(page.tools).toHaveLength(20);
    expect(page).toMatchObject({ totalMatches: 25, hasMore: true, nextOffset: 20 });
    expect(Object.keys(page)).toEqual(["tools", "totalMatches", "hasMore", "nextOffset", "diagnostics", "lockChanged"]);
    // Capped, but not silently (helper-73 #15): a warning on stderr and in the JSON; 20 itself is not one.
    expect(page.diagnostics).toMatchObject([{ code: "AL8049", severity: "warning", message: "--limit 50 is more than a page holds: this page has at most 20 tools." }]);
    expect(output.exitCode).toBe(0);
    expect(output.stderr).toContain("warning AL8049: --limit 50 is more than a page holds");
    const pretty = await runSearchCommand({ query: "ledger", root: agent.root, limit: "21" });
    expect(pretty.stderr).toContain("warning AL8049: --limit 21");
    expect(pretty.stdout).toContain("showing 1–20 of 25; next page: --offset 20");
    const twenty = await runSearchCommand({ query: "ledger", root: agent.root, limit: "20", format: "json" });
    expect([JSON.parse(twenty.stdout).diagnostics, twenty.stderr]).toEqual([[], ""]);
    const alias = JSON.parse((await runSearchCommand({ query: "invoice", root: agent.root, format: "json" })).stdout);
    expect(alias.tools[0]).toEqual({
      name: "fetch_bill",
      description: "Fetch one customer document.",
      inputSchema: ECHO_SCHEMA,
      source: "plugin:billing",
      visibility: "deferred",
      tags: ["accounts"],
      aliases: ["invoice"],
    });
    expect(alias.tools[1].name).toBe("send_reminder");
  });

  it("never finds hidden tools and searches the chosen surface only", async () => {
    for (const query of ["audit", "audit_log", ""]) {
      const output = await runSearchCommand({ query, root: agent.root, limit: "20", format: "json" });
      expect(toolNames(output.stdout)).not.toContain("audit_log");
    }
    const child = await runSearchCommand({ query: "summarise", root: agent.root, surface: CHILD, format: "json" });
    expect(toolNames(child.stdout)[0]).toBe("summarize");
    const none = await runSearchCommand({ query: "ledger", root: agent.root, surface: CHILD, format: "json" });
    expect(JSON.parse(none.stdout)).toEqual({ tools: [], totalMatches: 0, hasMore: false, diagnostics: [], lockChanged: false });
  });

  it("prints a readable page with the next offset", async () => {
    const output = await runSearchCommand({ query: "ledger", root: agent.root, limit: "2" });
    expect(output.exitCode).toBe(0);
    expect(output.stdout).toContain("1. ledger_export_01");
    expect(output.stdout).toContain("2. ledger_export_02");
    expect(output.stdout).toContain("showing 1–2 of 25; next page: --offset 2");
    expect((await runSearchCommand({ query: "zzzz", root: agent.root })).stdout).toBe('No tools match "zzzz".\n');
  });

  it("exits 2 with AL8043 for a bad --limit or --offset", async () => {
    for (const flags of [{ limit: "0" }, { limit: "many" }, { offset: "-1" }, { offset: "1.5" }]) {
      const output = await runSearchCommand({ query: "ledger", root: agent.root, format: "json", ...flags });
      expect(output.exitCode).toBe(2);
      expect(JSON.parse(output.stdout).diagnostics[0].code).toBe("AL8043");
    }
    // A whole number too long to page to says so, not "must be a non-negative integer" (helper-73 #15).
    const huge = await runSearchCommand({ query: "ledger", root: agent.root, format: "json", offset: "99999999999999999999" });
    expect(JSON.parse(huge.stdout).diagnostics[0].message).toBe("--offset '99999999999999999999' must be at most 999999999.");
  });

  it("exits 2 with AL8044, before compiling anything, when no agent is here and the query is an agent's folder", () => {
    const elsewhere = tempDir("al-search-swap-");
    const target = tempDir("al-search-agent-");
    fs.writeFileSync(path.join(target, "agent.md"), "---\nname: swapped\n---\n");
    const folder = path.relative(elsewhere, target);
    const swapped = runCli(["search", folder], { cwd: elsewhere });
    expect(swapped.status, swapped.stderr).toBe(2);
    expect(swapped.stderr).toContain("AL8044");
    expect(swapped.stderr).toContain(`To browse that agent's tools: ${printedCli(elsewhere)} search '' ${folder};`);
    const json = runCli(["search", folder, "--format", "json"], { cwd: elsewhere });
    expect(json.status).toBe(2);
    expect(JSON.parse(json.stdout).diagnostics).toMatchObject([{ code: "AL8044", message: `There is no agent here, and the query '${folder}' is an agent's folder: search takes the query first, then the root.` }]);
    // Nothing was compiled or written, here or there.
    expect(fs.readdirSync(elsewhere)).toEqual([]);
    expect(fs.readdirSync(target)).toEqual(["agent.md"]);
    // With an agent here, the same words are a query like any other; with neither, the compile says there is no agent.
    expect(runCli(["search", path.relative(target, elsewhere)], { cwd: target }).stderr).not.toContain("AL8044");
    const nothing = runCli(["search", "ledger"], { cwd: elsewhere });
    expect(nothing.status).toBe(1);
    expect(nothing.stderr).toContain("AL1001");
    // A query naming a file (no folder under it) is a query too, not a crash (was ENOTDIR, exit 2).
    fs.writeFileSync(path.join(elsewhere, "notes.txt"), "not an agent\n");
    const word = runCli(["search", "notes.txt"], { cwd: elsewhere });
    expect(word.status, word.stderr).toBe(1);
    expect(word.stderr).toContain("AL1001");
  });

  it("prints a compile-first step's errors as compile does: relative to the working directory, with a code frame", () => {
    const parent = tempDir("al-compile-first-");
    const root = path.join(parent, "agent");
    fs.cpSync(path.join(repoRoot, "examples/support-agent"), root, { recursive: true, filter: (source) => !source.includes(`${path.sep}.assemblyline`) });
    const index = path.join(root, "plugins/example/ai.assemblyline/index.ts");
    fs.writeFileSync(index, fs.readFileSync(index, "utf8").replace('description: "Echo a message back to the caller."', "description: 42"));
    for (const args of [["tools", "agent"], ["search", "echo", "agent"], ["call", "echo", "agent", "--input", '{"message":"hi"}']]) {
      const run = runCli(args, { cwd: parent });
      expect(run.status, run.stderr).toBe(1);
      expect(run.stderr).toMatch(/^agent\/plugins\/example\/ai\.assemblyline\/index\.ts:\d+:\d+ - error AL4003: /m);
      expect(run.stderr).toMatch(/^ {2}> {1,2}\d+ \| +description: 42,$/m);
      // --format json keeps the contract: files relative to the root.
      const json = JSON.parse(runCli([...args, "--format", "json"], { cwd: parent }).stdout);
      expect(json.diagnostics[0]).toMatchObject({ code: "AL4003", file: "plugins/example/ai.assemblyline/index.ts" });
    }
  });

  it("with --run activates the page for that run's next snapshot", async () => {
    const search = await runSearchCommand({ query: "invoice", root: agent.root, limit: "1", run: "cli-search-run", format: "json" });
    expect(JSON.parse(search.stdout).activated).toEqual(["fetch_bill"]);
    const tools = await runToolsCommand({ root: agent.root, run: "cli-search-run", format: "json" });
    expect(toolNames(tools.stdout)).toContain("fetch_bill");
    expect(toolNames((await runToolsCommand({ root: agent.root, format: "json" })).stdout)).not.toContain("fetch_bill");
    expect(tools.stderr).toBe("");
    // The search started the run, so a second search in it does not warn.
    expect((await runSearchCommand({ query: "invoice", root: agent.root, limit: "1", run: "cli-search-run" })).stderr).toBe("");
    // A typo of it: the warning names the run this agent has (new-user trial of 6 December).
    expect((await runToolsCommand({ root: agent.root, run: "cli-search-rnu" })).stderr).toContain("hint: Did you mean 'cli-search-run', a run of this agent? Give that id to --run to continue it.");
  });

  it("with --run of a run the state has no record of, warns that the search started it (helper-64 M28b: a mistyped id silently made a new run)", async () => {
    const search = await runSearchCommand({ query: "invoice", root: agent.root, limit: "1", run: "cli-search-typo", format: "json" });
    expect(search.exitCode).toBe(0);
    expect(JSON.parse(search.stdout).activated).toEqual(["fetch_bill"]);
    expect(search.stderr).toBe(
      "warning AL8046: Run 'cli-search-typo' has no record in this agent's state (.assemblyline/state.db): nothing was called or searched in it, so this search started it; check the id if you meant an existing run.\n" +
        `  hint: ${UNKNOWN_RUN_HINT}\n\nFound 1 warning.\n`,
    );
  });

  it("with --run of a run the state has no record of, warns (a mistyped id would look like a run that activated nothing)", async () => {
    const tools = await runToolsCommand({ root: agent.root, run: "never-made-run" });
    expect(tools.exitCode).toBe(0);
    expect(tools.stderr).toBe(
      "warning AL8046: Run 'never-made-run' has no record in this agent's state (.assemblyline/state.db): nothing was called or searched in it, so the list has no tools it activated.\n" +
        `  hint: ${UNKNOWN_RUN_HINT}\n\nFound 1 warning.\n`,
    );
    expect(tools.stdout).toBe((await runToolsCommand({ root: agent.root })).stdout);
  });
});

describe("the commands in a separate process", () => {
  it("are registered with commander and set the exit code", () => {
    const tools = runSourceCli("tools", agent.root, "--surface", CHILD, "--format", "json");
    expect(tools.status).toBe(0);
    expect(toolNames(tools.stdout)).toContain("web_fetch");
    const search = runSourceCli("search", "ledger", agent.root, "--limit", "50", "--offset", "20", "--format", "json");
    expect(search.status).toBe(0);
    expect(JSON.parse(search.stdout)).toMatchObject({ totalMatches: 25, hasMore: false });
    expect(toolNames(search.stdout)).toEqual(LEDGER_TOOLS.slice(20));
    const usage = runSourceCli("search", "ledger", agent.root, "--offset", "x");
    expect(usage.status).toBe(2);
    expect(usage.stderr).toContain("AL8043");
    // An output format the command does not have is a usage error (exit 2, the built CLI), as for compile.
    for (const args of [["tools", agent.root], ["search", "", agent.root], ["call", "echo", agent.root, "--input", "{}"], ["approve", "c1", agent.root, "--run", "r1"]]) {
      const wrong = runCli([...args, "--format", "xml"]);
      expect(wrong.status).toBe(2);
      expect(wrong.stderr).toContain("Allowed choices are pretty, json");
    }
  });

  it("colour the pretty output only when FORCE_COLOR asks (a pipe, CI=true alone, NO_COLOR: plain)", () => {
    const forced = runSourceCliWithEnv(["search", "ledger", agent.root, "--limit", "1"], { NO_COLOR: "", FORCE_COLOR: "1" });
    expect(forced.status).toBe(0);
    expect(forced.stdout).toContain("\u001b[");
    const ci = runSourceCliWithEnv(["search", "ledger", agent.root, "--limit", "1"], { NO_COLOR: "", FORCE_COLOR: "", CI: "true" });
    expect(ci.stdout).not.toContain("\u001b[");
    const off = runSourceCliWithEnv(["search", "ledger", agent.root, "--limit", "1"], { NO_COLOR: "1", FORCE_COLOR: "1" });
    expect(off.stdout).not.toContain("\u001b[");
    expect(off.stdout).toMatch(/^ {2}1\. \w+ \(/);
  });
});
