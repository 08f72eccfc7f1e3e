/**
 * The contract review placed on plugins.lock (`lockfile/review-diagnostics.ts`), for `review
 * --format github|sarif`: each change on the member it is about in the lock on disk, at the
 * nearest member the lock still has for what it no longer holds, and at line 1 without a lock.
 */
import { describe, expect, it } from "vitest";
import type { Lockfile } from "../../contract/lockfile-types.js";
import { reviewContract } from "../../lockfile/review-contract.js";
import { lockPathOfChange, reviewDiagnostics } from "../../lockfile/review-diagnostics.js";
import { serializeLockfile } from "../../lockfile/serialize-lockfile.js";
import { sampleLock } from "./helpers.js";

/** 1-based line and column of the first occurrence of `needle` in `text` (after `after`, when given). */
function positionOf(text: string, needle: string, after = ""): { line: number; column: number } {
  const offset = text.indexOf(needle, after === "" ? 0 : text.indexOf(after));
  expect(offset, needle).toBeGreaterThanOrEqual(0);
  const before = text.slice(0, offset).split("\n");
  return { line: before.length, column: before.at(-1)!.length + 1 };
}

describe("reviewDiagnostics", () => {
  it("places each kind on its member of the new lock, and a removed tool or capability on the nearest member left", () => {
    const before = sampleLock();
    const after = JSON.parse(JSON.stringify(before)) as any;
    const capabilities = after.surfaces["."].capabilities;
    capabilities.openui.source.version = "1.1.0";
    capabilities.openui.tools.render_card.description = "Render a card with the brand's colours.";
    delete capabilities.openui.tools.render_card.needsApproval;
    capabilities.example.tools.shout = { ...capabilities.example.tools.echo, definition: "./ai.assemblyline/shout.ts", description: "Shout it." };
    capabilities.example.tools.echo.inputSchema = { type: "object" };
    // The research subagent's capability goes away with its only tool.
    (before.surfaces["subagents/research"] as { capabilities: unknown }).capabilities = { notes: { ...before.surfaces["."]!.capabilities["example"]!, tools: { jot: before.surfaces["."]!.capabilities["example"]!.tools["echo"]! } } } as never;
    const review = reviewContract(before, after as Lockfile);
    const text = serializeLockfile(after as Lockfile);
    const diagnostics = reviewDiagnostics(review, "plugins.lock", text);
    expect(review.changes.map((c) => [c.kind, c.capability, c.tool])).toEqual([
      ["package-changed", "openui", null],
      ["schema-widened", "example", "echo"],
      ["description-changed", "openui", "render_card"],
      ["approval-removed", "openui", "render_card"],
      ["tool-added", "example", "shout"],
      ["tool-removed", "notes", "jot"],
    ]);
    // The position of `needle` (its character at `skip`) after the first `after`.
    const at = (needle: string, after: string, skip = 0) => {
      const { line, column } = positionOf(text, needle, after);
      return [line, column + skip];
    };
    expect(diagnostics.map((d, index) => [d.code, review.changes[index]!.kind, d.line, d.column])).toEqual([
      // A value: the `source` object's opening brace.
      ["AL6217", "package-changed", ...at('"source": {', '"openui": {', '"source": '.length)],
      ["AL6217", "schema-widened", ...at('"inputSchema": {', '"echo": {', '"inputSchema": '.length)],
      ["AL6216", "description-changed", ...at("\"Render a card with the brand's colours.\"", "")],
      // The gate is gone from the new lock: its tool's key.
      ["AL6216", "approval-removed", ...at('"render_card": {', "")],
      ["AL6217", "tool-added", ...at('"shout": {', "")],
      // The capability is gone from the surface: the nearest member left is the surface's `capabilities`.
      ["AL6217", "tool-removed", ...at('"capabilities"', '"subagents/research"')],
    ]);
    expect(diagnostics[5]!.path).toBe('surfaces["subagents/research"].capabilities.notes.tools.jot');
  });

  it("names the change's kind, subject and detail, with the hint only where review is needed", () => {
    const before = sampleLock();
    const after = JSON.parse(JSON.stringify(before)) as any;
    delete after.surfaces["."].capabilities.openui.tools.render_card.needsApproval;
    after.surfaces["."].capabilities.openui.source.version = "1.1.0";
    const [pack, gate] = reviewDiagnostics(reviewContract(before, after), "plugins.lock", serializeLockfile(after));
    expect(pack).toMatchObject({ code: "AL6217", severity: "info", message: "package-changed: surface '.': openui: @assemblyline-agents/openui@1.0.0 → @assemblyline-agents/openui@1.1.0" });
    expect(pack!.hint).toBeUndefined();
    expect(gate).toMatchObject({ code: "AL6216", severity: "error", message: "approval-removed: tool 'render_card' on surface '.': the approval gate is gone (it asked: \"Shows UI to the user.\", sideEffect external)" });
    expect(gate!.hint).toContain("A person should read this change before it is merged");
  });

  it("places every change at line 1 of plugins.lock when there is no lock on disk, or it is not JSON", () => {
    const review = reviewContract(undefined, sampleLock());
    for (const text of [undefined, "<<<<<<< ours\n{}\n"]) {
      const placed = reviewDiagnostics(review, "plugins.lock", text);
      expect(placed.length).toBe(review.changes.length);
      expect(new Set(placed.map((d) => `${d.file}:${d.line}:${d.column}`))).toEqual(new Set(["plugins.lock:1:1"]));
    }
    expect(review.changes.map(lockPathOfChange)).toContainEqual(["surfaces", ".", "capabilities", "example", "tools", "echo"]);
    expect(review.changes.map(lockPathOfChange)).toContainEqual(["surfaces", ".", "capabilities", "openui", "source"]);
  });
});
