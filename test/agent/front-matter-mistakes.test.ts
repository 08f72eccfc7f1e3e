/**
 * Issue 13 item 4: a typo in agent.md's front matter must not remove every plugin silently.
 * - `capabilites:` (close to a known field) is AL1027, an error with a did-you-mean, so compile
 *   fails and leaves plugins.lock as it was;
 * - a surface that selects nothing while plugins sit in its plugins/ is AL1028, one warning
 *   naming them (instead of an AL1017 note per plugin);
 * - `compile --check` never proposes accepting a lock that drops every tool without saying so.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { compileAgent } from "../../build/compile.js";
import { formatLockfileCheckReport } from "../../lockfile/format-check-report.js";
import { copyAgent } from "../helpers/copy-agent.js";
import { supportAgentRoot } from "../helpers/support-agent.js";

/** The example agent, compiled once (its lock has tools), with agent.md's front matter edited by `edit`. */
async function agentWithLockThen(edit: (agentMd: string) => string): Promise<{ root: string; lock: string }> {
  const root = copyAgent(supportAgentRoot, "al-typo-");
  const first = await compileAgent({ root, package: false, displayRoot: "." });
  expect(first.ok).toBe(true);
  const agentMd = path.join(root, "agent.md");
  fs.writeFileSync(agentMd, edit(fs.readFileSync(agentMd, "utf8")));
  return { root, lock: fs.readFileSync(path.join(root, "plugins.lock"), "utf8") };
}

describe("front matter mistakes", () => {
  it("capabilites: is an error with a did-you-mean at the key, and the lock keeps its tools", async () => {
    const { root, lock } = await agentWithLockThen((text) => text.replace("capabilities:", "capabilites:"));
    const result = await compileAgent({ root, package: false, displayRoot: "." });
    expect(result.ok).toBe(false);
    const typo = result.diagnostics.find((d) => d.code === "AL1027");
    expect(typo).toMatchObject({ severity: "error", file: "agent.md", line: 4, column: 1, path: "capabilites", hint: "Did you mean 'capabilities'? Rename 'capabilites' to 'capabilities'." });
    expect(typo!.message).toContain("'capabilites'");
    expect(fs.readFileSync(path.join(root, "plugins.lock"), "utf8")).toBe(lock);
  });

  it("other near misses of known fields are caught too; fields far from every known one are left to the host", async () => {
    const { root } = await agentWithLockThen((text) => text.replace("name:", "nme:").replace("description:", "model: gpt\ndescripton:"));
    const result = await compileAgent({ root, package: false, displayRoot: "." });
    expect(result.diagnostics.filter((d) => d.code === "AL1027").map((d) => [d.path, d.hint])).toEqual([
      ["nme", "Did you mean 'name'? Rename 'nme' to 'name'."],
      ["descripton", "Did you mean 'description'? Rename 'descripton' to 'description'."],
    ]);
    expect(result.diagnostics.some((d) => d.path === "model")).toBe(false);
  });

  it("a swap of two letters is one edit: nmae: is AL1027 (new-user trial E7)", async () => {
    const { root, lock } = await agentWithLockThen((text) => text.replace("name:", "nmae:"));
    const result = await compileAgent({ root, package: false, displayRoot: "." });
    expect(result.ok).toBe(false);
    expect(result.diagnostics.filter((d) => d.code === "AL1027").map((d) => [d.path, d.hint])).toEqual([["nmae", "Did you mean 'name'? Rename 'nmae' to 'name'."]]);
    expect(fs.readFileSync(path.join(root, "plugins.lock"), "utf8")).toBe(lock);
  });

  // New-user trial E1: `----` on the first line made the whole front matter instructions text,
  // compile exited 0 with a warning and wrote a lock without any tool.
  it.each([
    ["----", "----"],
    [" ---", " ---"],
    ["--", "--"],
    ["- - -", "- - -"],
  ])("an opening fence written %j is an error at line 1, and the lock keeps its tools", async (written) => {
    const { root, lock } = await agentWithLockThen((text) => text.replace(/^---\n/, `${written}\n`));
    const result = await compileAgent({ root, package: false, displayRoot: "." });
    expect(result.ok).toBe(false);
    const fence = result.diagnostics.filter((d) => d.code === "AL1030");
    expect(fence).toHaveLength(1);
    expect(fence[0]).toMatchObject({ severity: "error", file: "agent.md", line: 1, column: 1, endLine: 1, endColumn: written.length + 1 });
    expect(fence[0]!.message).toContain(`'${written}'`);
    expect(fence[0]!.hint).toBe("Write exactly '---' (three hyphens, nothing before them) on the first line: the front matter's capabilities are otherwise not read.");
    expect(result.diagnostics.some((d) => d.code === "AL1004")).toBe(false);
    expect(fs.readFileSync(path.join(root, "plugins.lock"), "utf8")).toBe(lock);
  });

  it("a front matter after blank lines is an error at its fence: the fence must be the first line", async () => {
    const { root, lock } = await agentWithLockThen((text) => `\n\n${text}`);
    const result = await compileAgent({ root, package: false, displayRoot: "." });
    expect(result.ok).toBe(false);
    const fence = result.diagnostics.filter((d) => d.code === "AL1030");
    expect(fence).toHaveLength(1);
    expect(fence[0]).toMatchObject({ line: 3, column: 1 });
    expect(fence[0]!.hint).toBe("Remove the 2 lines before it: the front matter's '---' must be the file's first line.");
    expect(fs.readFileSync(path.join(root, "plugins.lock"), "utf8")).toBe(lock);
  });

  it("instructions that only start with a horizontal rule, with no later fence, stay AL1004", async () => {
    const { root } = await agentWithLockThen(() => "----\n\nYou answer questions.\n");
    const result = await compileAgent({ root, package: false, displayRoot: "." });
    expect(result.diagnostics.map((d) => d.code)).toContain("AL1004");
    expect(result.diagnostics.some((d) => d.code === "AL1030")).toBe(false);
  });

  it("a surface that selects nothing while plugins/ holds plugins is one warning naming them", async () => {
    const { root } = await agentWithLockThen((text) => text.replace(/capabilities:[\s\S]*?\n---/, "plugins: none\n---"));
    const result = await compileAgent({ root, package: false, displayRoot: ".", check: true });
    const warnings = result.diagnostics.filter((d) => d.code === "AL1028");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ severity: "warning", file: "agent.md" });
    expect(warnings[0]!.message).toContain("plugins/example/, plugins/private-search/ and plugins/support-tools/");
    expect(result.diagnostics.filter((d) => d.code === "AL1017" && d.file === "agent.md")).toEqual([]);
  });

  it("compile --check says that the fix would drop every tool, and does not offer it as a routine fix", async () => {
    const { root } = await agentWithLockThen((text) => text.replace(/capabilities:[\s\S]*?\n---/, "plugins: none\n---"));
    const result = await compileAgent({ root, package: false, displayRoot: ".", check: true });
    expect(result.ok).toBe(false);
    const report = result.checkReport!;
    expect(report.dropsEveryTool).toEqual([{ surfaceId: ".", tools: ["echo", "hydrate_customer", "lookup_record", "record_note", "search", "accept_document"].sort() }]);
    const text = formatLockfileCheckReport(report);
    expect(text).toContain('Warning: What compile would write drops every tool of surface "." (6 tools:');
    expect(text).toContain("Only to accept that: npx assembly-line compile");
    expect(text).not.toMatch(/^Fix: /m);
    expect(report.diagnostic!.hint).toContain("drops every tool");
  });

  it("an ordinary stale lock keeps the plain fix line", async () => {
    const { root } = await agentWithLockThen((text) => text.replace("index: products", "index: catalog"));
    const result = await compileAgent({ root, package: false, displayRoot: ".", check: true });
    expect(result.checkReport!.dropsEveryTool).toBeUndefined();
    expect(formatLockfileCheckReport(result.checkReport!)).toMatch(/^Fix: npx assembly-line compile \(then commit plugins.lock\)$/m);
  });
});
