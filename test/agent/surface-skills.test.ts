/**
 * A surface's own skills (`<surface>/skills/<name>/SKILL.md`), discovered by `loadAgent` with the
 * Agent Skills rules plugin skills use (issue 5: `load_skill` serves "the surface's skills and
 * its plugins' skills").
 */
import { createHash } from "node:crypto";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { loadAgent } from "../../compiler/agent/load-agent.js";
import { discoverSurfaceSkills } from "../../compiler/agent/surface-skills.js";
import { createNodeHost } from "../../common/host.js";
import { tempDir, writeFiles, writeTree } from "../helpers/temp-tree.js";

const host = createNodeHost();
const skill = (name: string, description = `How to ${name}.`) => `---\nname: ${name}\ndescription: ${description}\n---\n\nSteps for ${name}.\n`;
const sri = (text: string) => `sha512-${createHash("sha512").update(text).digest("base64")}`;

describe("loadAgent: a surface's own skills", () => {
  it("gives each surface its own skills/, never its child's or its plugins'", () => {
    const root = writeTree({
      "agent.md": "---\nname: root\n---\n",
      "skills/triage/SKILL.md": skill("triage"),
      "skills/billing/SKILL.md": skill("billing"),
      "plugins/helper/skills/from-plugin/SKILL.md": skill("from-plugin"),
      "subagents/researcher/agent.md": "---\nname: researcher\n---\n",
      "subagents/researcher/skills/web-research/SKILL.md": skill("web-research"),
      "subagents/quiet/agent.md": "---\nname: quiet\n---\n",
    });
    const agent = loadAgent(host, root);
    expect(agent.diagnostics).toEqual([]);
    const byId = Object.fromEntries(agent.surfaces.map((s) => [s.id, s.skills]));
    expect(byId["."]).toEqual([
      { name: "billing", description: "How to billing.", file: path.join(root, "skills/billing/SKILL.md"), integrity: sri(skill("billing")) },
      { name: "triage", description: "How to triage.", file: path.join(root, "skills/triage/SKILL.md"), integrity: sri(skill("triage")) },
    ]);
    expect(byId["subagents/researcher"]).toEqual([
      {
        name: "web-research",
        description: "How to web-research.",
        file: path.join(root, "subagents/researcher/skills/web-research/SKILL.md"),
        integrity: sri(skill("web-research")),
      },
    ]);
    expect(byId["subagents/quiet"]).toEqual([]);
  });

  it("skips a skill that breaks the Agent Skills rules with the plugin-skill codes, and keeps the others", () => {
    const root = writeTree({
      "agent.md": "---\nname: root\n---\n",
      "skills/good/SKILL.md": skill("good"),
      "skills/no-front-matter/SKILL.md": "Just text.\n",
      "skills/wrong-name/SKILL.md": skill("other-name"),
      "skills/no-description/SKILL.md": "---\nname: no-description\n---\n",
      "skills/typo/SKILL.md": "---\nname: typo\ndescription: Loads.\nlicence: MIT\n---\n",
    });
    const agent = loadAgent(host, root);
    expect(agent.surfaces[0]!.skills!.map((s) => s.name)).toEqual(["good", "typo"]);
    expect(agent.diagnostics.map((d) => [d.code, path.relative(root, d.file), d.line])).toEqual([
      ["AL2205", "skills/no-description/SKILL.md", 1],
      ["AL2201", "skills/no-front-matter/SKILL.md", 1],
      ["AL2211", "skills/typo/SKILL.md", 4],
      ["AL2208", "skills/wrong-name/SKILL.md", 2],
    ]);
    expect(agent.diagnostics.find((d) => d.code === "AL2211")).toMatchObject({ severity: "warning", hint: "Did you mean 'license'?" });
  });

  it("looks only at skills/<name>/SKILL.md: files in skills/, folders without SKILL.md and deeper SKILL.md files are not skills", () => {
    const root = writeTree({
      "agent.md": "---\nname: root\n---\n",
      "skills/README.md": "Notes about skills.\n",
      "skills/empty/notes.md": "no SKILL.md here\n",
      "skills/deep/references/inner/SKILL.md": skill("inner"),
      "skills/lower/skill.md": skill("lower"),
    });
    const agent = loadAgent(host, root);
    expect(agent.diagnostics).toEqual([]);
    expect(agent.surfaces[0]!.skills).toEqual([]);
  });
});

describe("discoverSurfaceSkills: what is particular to a surface", () => {
  it("reports a skills file that is not a folder (AL1040)", () => {
    const root = writeTree({ "agent.md": "---\n---\n", skills: "not a folder\n" });
    const found = discoverSurfaceSkills(host, root, root);
    expect(found.skills).toEqual([]);
    expect(found.diagnostics).toMatchObject([{ code: "AL1040", severity: "error", message: "'skills' is a file, not a folder, so this surface has no skills of its own." }]);
  });

  it("skips a skill, or a SKILL.md, that resolves outside the agent root (AL1041) and never reads it", () => {
    const outside = tempDir();
    writeFiles(outside, { "shared/SKILL.md": skill("shared"), "loose.md": skill("linked-file") });
    const root = writeTree({
      "agent.md": "---\n---\n",
      "skills/shared": { link: path.join(outside, "shared") },
      "skills/linked-file/SKILL.md": { link: path.join(outside, "loose.md") },
      "skills/inside/SKILL.md": skill("inside"),
    });
    const found = discoverSurfaceSkills(host, root, root);
    expect(found.skills.map((s) => s.name)).toEqual(["inside"]);
    // The linked skill folder is placed on the folder (its file ends in "/": no line and column; helper-88).
    expect(found.diagnostics.map((d) => [d.code, d.file.slice(root.length + 1)])).toEqual([
      ["AL1041", "skills/linked-file/SKILL.md"],
      ["AL1041", "skills/shared/"],
    ]);
    expect(found.diagnostics[1]!.message).toContain("outside the agent root; skill 'shared' is skipped");
  });

  it("follows a symlink that stays inside the agent root", () => {
    const root = writeTree({
      "agent.md": "---\n---\n",
      "docs/playbook/SKILL.md": skill("playbook"),
      "skills/playbook": { link: "../docs/playbook" },
    });
    const found = discoverSurfaceSkills(host, root, root);
    expect(found.diagnostics).toEqual([]);
    expect(found.skills).toEqual([{ name: "playbook", description: "How to playbook.", file: path.join(root, "skills/playbook/SKILL.md"), integrity: sri(skill("playbook")) }]);
  });

  it("hashes SKILL.md with CRLF read as LF, so a Windows checkout has the same integrity", () => {
    const crlf = writeTree({ "skills/triage/SKILL.md": skill("triage").replace(/\n/g, "\r\n") });
    expect(discoverSurfaceSkills(host, crlf, crlf).skills).toMatchObject([{ name: "triage", integrity: sri(skill("triage")) }]);
  });

  it("skips a SKILL.md that is not UTF-8 or not a regular file (AL1042)", () => {
    const root = writeTree({
      "agent.md": "---\n---\n",
      "skills/latin1/SKILL.md": Uint8Array.from([0x2d, 0x2d, 0x2d, 0x0a, 0xe9, 0x0a, 0x2d, 0x2d, 0x2d, 0x0a]),
      "skills/folder/SKILL.md": { dir: true },
    });
    const found = discoverSurfaceSkills(host, root, root);
    expect(found.skills).toEqual([]);
    expect(found.diagnostics.map((d) => [d.code, d.message])).toEqual([
      ["AL1042", "'skills/folder/SKILL.md' cannot be read: it is not a regular file; skill 'folder' is skipped."],
      ["AL1042", "'skills/latin1/SKILL.md' cannot be read: it is not valid UTF-8; skill 'latin1' is skipped."],
    ]);
  });

  it("names a subagent's files relative to the agent root", () => {
    const root = writeTree({ "subagents/child/skills/bad/SKILL.md": "no front matter\n" });
    const found = discoverSurfaceSkills(host, root, path.join(root, "subagents/child"));
    expect(found.diagnostics).toMatchObject([{ code: "AL2201", file: path.join(root, "subagents/child/skills/bad/SKILL.md") }]);
  });
});
