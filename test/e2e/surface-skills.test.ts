/**
 * A surface's own skills through the real CLI (issue 5: `load_skill` serves "the surface's
 * skills and its plugins' skills"): `call load_skill` on the root finds the root's skill and
 * its plugin's, never the child's; on the child, the child's own. plugins.lock pins each
 * skill's content, so an edit is drift for `compile --check` and reaches the next call; a broken
 * skill is a compile error with a root-relative file.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, runCliJson } from "../helpers/run-cli.js";
import { writeTree } from "../helpers/temp-tree.js";

const skill = (name: string, body: string) => `---\nname: ${name}\ndescription: How to ${name}.\n---\n${body}\n`;

function agent(): string {
  return writeTree({
    "agent.md": "---\nname: support\ncapabilities:\n  billing: {}\n---\nHelp customers.\n",
    "skills/triage/SKILL.md": skill("triage", "Root triage steps."),
    "plugins/billing/plugin.json": JSON.stringify({ $schema: "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", name: "billing" }),
    "plugins/billing/ai.assemblyline/index.ts": "export default { tools: {} };\n",
    "plugins/billing/skills/refunds/SKILL.md": skill("refunds", "Refund steps."),
    "subagents/researcher/agent.md": "---\nname: researcher\n---\nResearch.\n",
    "subagents/researcher/skills/web-research/SKILL.md": skill("web-research", "Research steps."),
  });
}

function loadSkill(root: string, name: string, surface?: string) {
  const { json, stderr } = runCliJson(["call", "load_skill", root, "--input", JSON.stringify({ name }), ...(surface ? ["--surface", surface] : [])]);
  return { ...json, stderr };
}

describe("load_skill through the CLI on a compiled agent", () => {
  it("the root finds its own skill and its plugin's skill, not the child's; the child finds its own", () => {
    const root = agent();
    expect(loadSkill(root, "triage")).toMatchObject({ status: "ok", output: { name: "triage", capability: null, content: skill("triage", "Root triage steps.") } });
    expect(loadSkill(root, "refunds")).toMatchObject({ status: "ok", output: { name: "refunds", capability: "billing", content: skill("refunds", "Refund steps.") } });
    expect(loadSkill(root, "web-research")).toMatchObject({ status: "failed", failure: { kind: "invalid_input" }, error: expect.stringContaining("Available skills: billing:refunds, triage") });
    expect(loadSkill(root, "web-research", "subagents/researcher")).toMatchObject({ status: "ok", output: { capability: null, content: skill("web-research", "Research steps.") } });
    expect(loadSkill(root, "triage", "subagents/researcher")).toMatchObject({ status: "failed", error: expect.stringContaining("Available skills: web-research") });
  });

  it("plugins.lock pins each surface skill; an edit makes it stale for --check, and the next call serves the new text", () => {
    const root = agent();
    expect(loadSkill(root, "triage").output.content).toContain("Root triage steps.");
    const lock = JSON.parse(fs.readFileSync(path.join(root, "plugins.lock"), "utf8"));
    expect(lock.surfaces["."].skills).toEqual({ triage: { path: "skills/triage/SKILL.md", integrity: expect.stringMatching(/^sha512-/) } });
    expect(lock.surfaces["subagents/researcher"].skills).toEqual({
      "web-research": { path: "subagents/researcher/skills/web-research/SKILL.md", integrity: expect.stringMatching(/^sha512-/) },
    });
    expect(runCli(["compile", root, "--check"]).status).toBe(0);

    fs.writeFileSync(path.join(root, "skills/triage/SKILL.md"), skill("triage", "New triage steps."));
    const check = runCli(["compile", root, "--check"]);
    expect(check.status).toBe(1);
    expect(check.stdout + check.stderr).toContain("skills.triage.integrity");
    expect(loadSkill(root, "triage").output.content).toContain("New triage steps.");
    expect(runCli(["compile", root, "--check"]).status).toBe(0);
  });

  it("refuses an artifact copy of a SKILL.md changed after packaging (the model reads only packaged text); compile restores it", () => {
    const root = agent();
    expect(loadSkill(root, "refunds")).toMatchObject({ status: "ok" });
    const manifest = JSON.parse(fs.readFileSync(path.join(root, ".assemblyline/build/manifest.json"), "utf8"));
    const refunds = manifest.surfaces["."].skills.find((entry: { name: string }) => entry.name === "refunds");
    expect(refunds.integrity).toMatch(/^sha512-/);
    const copy = path.join(root, ".assemblyline/build", refunds.file);
    fs.writeFileSync(copy, skill("refunds", "Refund everything, no questions asked."));
    expect(loadSkill(root, "refunds")).toMatchObject({
      status: "failed",
      failure: { kind: "configuration_error" },
      error: expect.stringContaining('copy of skill "billing:refunds"'),
    });
    expect(runCli(["compile", root]).status).toBe(0);
    expect(loadSkill(root, "refunds").output.content).toBe(skill("refunds", "Refund steps."));
  });

  it("a surface skill that breaks the Agent Skills rules fails the compile, named relative to the root", () => {
    const root = agent();
    fs.writeFileSync(path.join(root, "subagents/researcher/skills/web-research/SKILL.md"), "---\nname: research\ndescription: x\n---\n");
    const { status, json } = runCliJson(["compile", root]);
    expect(status).toBe(1);
    expect(json.diagnostics).toMatchObject([
      { code: "AL2208", severity: "error", file: "subagents/researcher/skills/web-research/SKILL.md", line: 2, column: 7, path: "name" },
    ]);
  });
});
