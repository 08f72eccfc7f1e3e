/**
 * Issue 11 item 3: every change class of the contract review has a fixture pair — the lock
 * compiled from an agent, then the agent changed — and an exact expected report.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { compileAgent } from "../../build/compile.js";
import { reviewContract, wordDiff, type ContractChange } from "../../lockfile/review-contract.js";
import { contractReviewJson, formatContractReview } from "../../lockfile/format-review.js";
import type { Lockfile } from "../../contract/lockfile-types.js";
import { agentWithTools, rewriteTools, type ToolSpec } from "../providers/helpers.js";
import { sampleLock } from "./helpers.js";

const SCHEMA = { type: "object", properties: { query: { type: "string", maxLength: 100 } }, required: ["query"], additionalProperties: false };
const BASE: Record<string, ToolSpec> = {
  search: { description: "Search the product index.", inputSchema: SCHEMA },
  deploy: { description: "Deploy the site.", inputSchema: { type: "object" }, needsApproval: { reason: "Deploys to production.", sideEffect: "external" } },
};

/** Compiles `before` (writing its lock), changes the agent to `after`, and returns the review `compile --check` makes. */
async function review(after: Record<string, ToolSpec>, before: Record<string, ToolSpec> = BASE): Promise<Omit<ContractChange, "needsReview" | "capability">[] & { needsReview?: boolean }> {
  const root = agentWithTools(before);
  const first = await compileAgent({ root, package: false, cache: false });
  expect(first.ok, JSON.stringify(first.diagnostics)).toBe(true);
  rewriteTools(root, after);
  const checked = await compileAgent({ root, check: true, package: false, cache: false });
  return (checked.review?.changes ?? []).map(({ kind, surface, tool, detail, needsReview }) => ({ kind, surface, tool, detail, needsReview }));
}

const change = (kind: ContractChange["kind"], tool: string | null, detail: string, needsReview = false) => ({ kind, surface: ".", tool, detail, needsReview });

describe("the contract review", () => {
  it("tool-added", async () => {
    expect(await review({ ...BASE, fetch: { inputSchema: { type: "object" }, visibility: "deferred" } })).toEqual([change("tool-added", "fetch", "fetch (tools, deferred)")]);
  });

  it("tool-removed", async () => {
    expect(await review({ search: BASE.search! })).toEqual([change("tool-removed", "deploy", "deploy (tools) is no longer sent to the model")]);
  });

  it("tool-renamed (same definition, new key)", async () => {
    expect(await review({ find: BASE.search!, deploy: BASE.deploy! })).toEqual([change("tool-renamed", "find", "search → find (same definition)")]);
  });

  it("the same definition in another plugin is a tool removed and one added, not a rename (helper-73 #15)", () => {
    const before = sampleLock();
    const after = structuredClone(before) as { surfaces: Record<string, { capabilities: Record<string, { tools: Record<string, unknown> }> }> };
    const capabilities = after.surfaces["."]!.capabilities;
    capabilities["example2"] = { ...structuredClone(capabilities["example"]!), tools: { echo2: capabilities["example"]!.tools["echo"] } };
    delete capabilities["example"]!.tools["echo"];
    expect(reviewContract(before, after as unknown as Lockfile).changes.filter((c) => c.tool !== null).map((c) => [c.kind, c.tool])).toEqual([
      ["tool-removed", "echo"],
      ["tool-added", "echo2"],
    ]);
  });

  it("description-changed, with a word diff (a local plugin: no review needed)", async () => {
    expect(await review({ ...BASE, search: { ...BASE.search!, description: "Search the whole product index." } })).toEqual([
      change("description-changed", "search", "Search the {+whole +}product index."),
    ]);
  });

  it("schema-widened", async () => {
    expect(await review({ ...BASE, search: { ...BASE.search!, inputSchema: { ...SCHEMA, properties: { query: { type: "string", maxLength: 500 } } } } })).toEqual([
      change("schema-widened", "search", "properties.query.maxLength: 100 → 500"),
    ]);
  });

  it("schema-narrowed", async () => {
    const narrowed = { ...SCHEMA, properties: { query: { type: "string", maxLength: 100 }, limit: { type: "integer" } }, required: ["query", "limit"] };
    expect(await review({ ...BASE, search: { ...BASE.search!, inputSchema: narrowed } })).toEqual([change("schema-changed", "search", 'required: + "limit"; properties.limit: added')]);
    expect(await review({ ...BASE, search: { ...BASE.search!, inputSchema: { ...SCHEMA, properties: { query: { type: "string", maxLength: 20 } } } } })).toEqual([
      change("schema-narrowed", "search", "properties.query.maxLength: 100 → 20"),
    ]);
  });

  it("schema-changed (a change that is neither: a new pattern and a raised bound)", async () => {
    expect(await review({ ...BASE, search: { ...BASE.search!, inputSchema: { ...SCHEMA, properties: { query: { type: "string", maxLength: 200, pattern: "^[a-z ]+$" } } } } })).toEqual([
      change("schema-changed", "search", "properties.query.pattern: added; properties.query.maxLength: 100 → 200"),
    ]);
  });

  it("approval-removed (needs review)", async () => {
    expect(await review({ ...BASE, deploy: { ...BASE.deploy!, needsApproval: undefined } })).toEqual([
      change("approval-removed", "deploy", 'the approval gate is gone (it asked: "Deploys to production.", sideEffect external)', true),
    ]);
  });

  it("approval-weakened: a lower side effect, or a reworded reason (needs review)", async () => {
    expect(await review({ ...BASE, deploy: { ...BASE.deploy!, needsApproval: { reason: "Deploys to production.", sideEffect: "idempotent" } } })).toEqual([
      change("approval-weakened", "deploy", "sideEffect external → idempotent", true),
    ]);
    expect(await review({ ...BASE, deploy: { ...BASE.deploy!, needsApproval: { reason: "Updates a preview.", sideEffect: "external" } } })).toEqual([
      change("approval-weakened", "deploy", "the reason shown at the approval gate changed: [-Deploys to production-]{+Updates a preview+}.", true),
    ]);
  });

  it("approval-added", async () => {
    expect(await review({ ...BASE, search: { ...BASE.search!, needsApproval: { reason: "Reads customer data.", sideEffect: "idempotent" } } })).toEqual([
      change("approval-added", "search", 'now needs approval: "Reads customer data.", sideEffect idempotent'),
    ]);
  });

  it("visibility-changed", async () => {
    expect(await review({ ...BASE, search: { ...BASE.search!, visibility: "deferred" } })).toEqual([change("visibility-changed", "search", "visible → deferred")]);
  });

  it("required-config-changed", async () => {
    expect(await review({ ...BASE, search: { ...BASE.search!, requiredConfig: ["SEARCH_URL"] } })).toEqual([change("required-config-changed", "search", "+ SEARCH_URL")]);
  });

  it("package-changed, and a published pack's description change needs review (lock pair)", () => {
    const before = sampleLock();
    const after = JSON.parse(JSON.stringify(before)) as { surfaces: Record<string, { capabilities: Record<string, any> }> };
    const openui = after.surfaces["."]!.capabilities["openui"];
    openui.source.version = "1.1.0";
    openui.tools.render_card.description = "Render a card with the brand's colours.";
    const result = reviewContract(before, after as unknown as Lockfile);
    expect(result.changes).toEqual([
      { kind: "package-changed", surface: ".", capability: "openui", tool: null, detail: "openui: @assemblyline-agents/openui@1.0.0 → @assemblyline-agents/openui@1.1.0", needsReview: false },
      { kind: "description-changed", surface: ".", capability: "openui", tool: "render_card", detail: "Render a card {+with the brand's colours+}.", needsReview: true },
    ]);
    expect(result.needsReview).toBe(true);
  });

  it("says nothing for an unchanged lock, and lists every tool as added (and every core tool removed) without a committed lock", () => {
    const lock = sampleLock();
    expect(reviewContract(lock, lock)).toEqual({ changes: [], needsReview: false });
    expect(reviewContract(undefined, lock).changes.map((c) => [c.kind, c.tool])).toEqual([
      ["package-changed", null],
      ["core-tool-disabled", "bash"],
      ["tool-added", "echo"],
      ["tool-added", "render_card"],
    ]);
  });

  it("reviews nothing against a committed lock it cannot read (a newer lockfileVersion, conflict markers, broken JSON): not every tool as added (helper-73 #15)", async () => {
    const root = agentWithTools(BASE);
    expect((await compileAgent({ root, package: false, cache: false })).ok).toBe(true);
    const lockPath = path.join(root, "plugins.lock");
    const good = fs.readFileSync(lockPath, "utf8");
    const unreadable = [good.replace('"lockfileVersion": 1', '"lockfileVersion": 99'), `<<<<<<< HEAD\n${good}=======\n${good}>>>>>>> theirs\n`, good.slice(0, 40)];
    for (const text of unreadable) {
      fs.writeFileSync(lockPath, text);
      const checked = await compileAgent({ root, check: true, package: false, cache: false });
      expect(checked.ok).toBe(false);
      expect(checked.review).toBeUndefined();
      expect(checked.checkReport?.review).toBeUndefined();
    }
    // Without a lock every tool is added: that review stays.
    fs.rmSync(lockPath);
    const fresh = await compileAgent({ root, check: true, package: false, cache: false });
    expect(fresh.review?.changes.filter((c) => c.kind === "tool-added").map((c) => c.tool).sort()).toEqual(Object.keys(BASE).sort());
  });

  // helper-89's review, finding 6: a description with `ESC[2K ESC[1A ESC[2K \r` erased the line
  // `review` printed and showed a fake one; the JSON keeps the description's exact text.
  it("shows a changed description's control characters as pictures, never sends them to the terminal", () => {
    const before = sampleLock();
    const after = JSON.parse(JSON.stringify(before));
    after.surfaces["."].capabilities.example.tools.echo.description = "Echo.\u001b[2K\u001b[1A\u001b[2K\rtool-description-changed echo: \"harmless\"";
    const result = reviewContract(before, after);
    const text = formatContractReview(result);
    expect(text).not.toMatch(/[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/);
    expect(text).toContain("␛[2K␛[1A␛[2K␍tool-description-changed");
    expect(JSON.parse(contractReviewJson(result)).changes[0].detail).toContain("\u001b[2K");
  });

  it("renders as text and as the exact JSON of `review --format json`", () => {
    const before = sampleLock();
    const after = JSON.parse(JSON.stringify(before));
    delete after.surfaces["."].capabilities.openui.tools.render_card.needsApproval;
    after.surfaces["."].capabilities.example.tools.echo.description = "Echo the message back.";
    const result = reviewContract(before, after);
    expect(formatContractReview(result)).toBe(
      [
        "Contract review: 2 changes, 1 needs review (marked !).",
        '  surface "."',
        "    description-changed  echo         Echo [-a-]{+the+} message back[- to the caller-].",
        '  ! approval-removed     render_card  the approval gate is gone (it asked: "Shows UI to the user.", sideEffect external)',
        "",
      ].join("\n"),
    );
    expect(JSON.parse(contractReviewJson(result))).toEqual({
      changes: [
        { kind: "description-changed", surface: ".", tool: "echo", detail: "Echo [-a-]{+the+} message back[- to the caller-]." },
        { kind: "approval-removed", surface: ".", tool: "render_card", detail: 'the approval gate is gone (it asked: "Shows UI to the user.", sideEffect external)' },
      ],
    });
  });

  it("word-diffs descriptions with the diff package", () => {
    expect(wordDiff("Echo a message", "Echo the message")).toBe("Echo [-a-]{+the+} message");
  });
});
