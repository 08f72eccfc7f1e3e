/**
 * `load_skill` on a manifest written by a real compile (not a hand-written one): issue 5 says it
 * serves "the surface's skills and its plugins' skills". The agent has a root skill, a root
 * plugin with a skill, and a subagent with its own skill and its own plugin's skill.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import ssri from "ssri";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { compileAgent } from "../../build/compile.js";
import type { ArtifactManifest } from "../../contract/manifest.js";
import { DEFAULT_ARTIFACT_DIR, MANIFEST_FILE } from "../../contract/manifest.js";
import { loadSkillTool } from "../../runtime-min/core-tools/load-skill.js";
import { writeTree } from "../helpers/temp-tree.js";
import { makeContext, makeDirs, type Sandbox } from "./context.js";

const skill = (name: string, body: string) => `---\nname: ${name}\ndescription: How to ${name}.\n---\n${body}\n`;
const plugin = (name: string) => ({
  [`${name}/plugin.json`]: JSON.stringify({ $schema: "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", name }),
  [`${name}/ai.assemblyline/index.ts`]: "export default { tools: {} };\n",
});
const under = (prefix: string, files: Record<string, string>) => Object.fromEntries(Object.entries(files).map(([k, v]) => [`${prefix}/${k}`, v]));

let root: string;
let artifactDir: string;
let manifest: ArtifactManifest;
let dirs: Sandbox;

beforeAll(async () => {
  root = writeTree({
    "agent.md": "---\nname: support\ncapabilities:\n  billing: {}\n---\nHelp customers.\n",
    "skills/triage/SKILL.md": skill("triage", "Root triage steps."),
    ...under("plugins", plugin("billing")),
    "plugins/billing/skills/refunds/SKILL.md": skill("refunds", "Refund steps."),
    "subagents/researcher/agent.md": "---\nname: researcher\ncapabilities:\n  citations: {}\n---\nResearch.\n",
    "subagents/researcher/skills/web-research/SKILL.md": skill("web-research", "Research steps."),
    ...under("subagents/researcher/plugins", plugin("citations")),
    "subagents/researcher/plugins/citations/skills/cite/SKILL.md": skill("cite", "Citation steps."),
  });
  const result = await compileAgent({ root, cache: false });
  expect(result.diagnostics).toEqual([]);
  expect(result.ok).toBe(true);
  artifactDir = path.join(root, DEFAULT_ARTIFACT_DIR);
  manifest = JSON.parse(fs.readFileSync(path.join(artifactDir, MANIFEST_FILE), "utf8"));
  dirs = await makeDirs();
});
afterAll(() => dirs.cleanup());

async function load(surfaceId: string, name: string) {
  const ctx = makeContext(dirs, { workspaceDir: await dirs.workspace("run-root"), manifest, artifactDir, surfaceId });
  return loadSkillTool({ name }, ctx);
}

test("the manifest lists each surface's own skills (capability null) and its plugins' skills, copied into the artifact", () => {
  expect(manifest.surfaces["."]!.skills).toEqual([
    { name: "triage", description: "How to triage.", capability: null, file: "skills/root/_surface/triage/SKILL.md", integrity: expect.stringMatching(/^sha512-/) },
    { name: "refunds", description: "How to refunds.", capability: "billing", file: "skills/root/billing/refunds/SKILL.md", integrity: expect.stringMatching(/^sha512-/) },
  ]);
  expect(manifest.surfaces["subagents/researcher"]!.skills).toEqual([
    { name: "web-research", description: "How to web-research.", capability: null, file: "skills/subagents/researcher/_surface/web-research/SKILL.md", integrity: expect.stringMatching(/^sha512-/) },
    { name: "cite", description: "How to cite.", capability: "citations", file: "skills/subagents/researcher/citations/cite/SKILL.md", integrity: expect.stringMatching(/^sha512-/) },
  ]);
  for (const surface of Object.values(manifest.surfaces)) {
    // Each copy exists and hashes to the integrity the manifest records for it.
    for (const entry of surface.skills) expect(ssri.checkData(fs.readFileSync(path.join(artifactDir, entry.file)), entry.integrity!), entry.file).toBeTruthy();
  }
});

describe("load_skill on the root", () => {
  test("finds the root's own skill and its plugin's skill", async () => {
    expect(await load(".", "triage")).toEqual({ name: "triage", capability: null, description: "How to triage.", content: skill("triage", "Root triage steps.") });
    expect(await load(".", "refunds")).toMatchObject({ capability: "billing", content: skill("refunds", "Refund steps.") });
    expect(await load(".", "billing:refunds")).toMatchObject({ name: "refunds" });
  });

  test("does not find the child's skills", async () => {
    await expect(load(".", "web-research")).rejects.toMatchObject({ kind: "invalid_input", message: expect.stringContaining("Available skills: billing:refunds, triage") });
    await expect(load(".", "cite")).rejects.toMatchObject({ kind: "invalid_input" });
  });
});

describe("load_skill on the child", () => {
  test("finds the child's own skill and its plugin's skill", async () => {
    expect(await load("subagents/researcher", "web-research")).toMatchObject({ capability: null, content: skill("web-research", "Research steps.") });
    expect(await load("subagents/researcher", "cite")).toMatchObject({ capability: "citations" });
  });

  test("does not find the root's skills", async () => {
    await expect(load("subagents/researcher", "triage")).rejects.toMatchObject({ kind: "invalid_input", message: expect.stringContaining("Available skills: citations:cite, web-research") });
    await expect(load("subagents/researcher", "refunds")).rejects.toMatchObject({ kind: "invalid_input" });
  });
});
