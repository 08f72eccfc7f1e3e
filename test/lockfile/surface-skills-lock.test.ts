/**
 * A surface's own skills in `plugins.lock`: `load_skill` serves their SKILL.md to the model, so
 * the lock pins each one's content (as a capability's `integrity` pins a plugin and its
 * skills). Editing a skill makes the lock stale; a CRLF checkout does not.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { analyzeAgent } from "../../compiler/analyze-agent.js";
import { createNodeHost } from "../../common/host.js";
import { buildLockfile } from "../../lockfile/build-lockfile.js";
import { findLockShapeError } from "../../lockfile/lockfile-schema.js";
import { serializeLockfile } from "../../lockfile/serialize-lockfile.js";
import { convertToCrlf } from "../helpers/copy-agent.js";
import { writeTree } from "../helpers/temp-tree.js";
import { sampleLock, sri } from "./helpers.js";

const skill = (name: string, body = `Steps for ${name}.`) => `---\nname: ${name}\ndescription: How to ${name}.\n---\n${body}\n`;

function agent(): string {
  return writeTree({
    "agent.md": "---\nname: support\n---\nHelp.\n",
    "skills/triage/SKILL.md": skill("triage"),
    "skills/billing/SKILL.md": skill("billing"),
    "subagents/researcher/agent.md": "---\nname: researcher\n---\n",
    "subagents/researcher/skills/web-research/SKILL.md": skill("web-research"),
    "subagents/quiet/agent.md": "---\nname: quiet\n---\n",
  });
}

function lockOf(root: string) {
  const analysis = analyzeAgent(createNodeHost(), root);
  expect(analysis.diagnostics).toEqual([]);
  return buildLockfile(analysis);
}

describe("surface skills in plugins.lock", () => {
  it("records each surface's own skills by name with their path and SKILL.md integrity; none for a surface without", () => {
    const lock = lockOf(agent());
    expect(lock.surfaces).toEqual({
      ".": {
        capabilities: {},
        skills: {
          billing: { path: "skills/billing/SKILL.md", integrity: sri(skill("billing")) },
          triage: { path: "skills/triage/SKILL.md", integrity: sri(skill("triage")) },
        },
      },
      "subagents/quiet": { capabilities: {} },
      "subagents/researcher": {
        capabilities: {},
        skills: { "web-research": { path: "subagents/researcher/skills/web-research/SKILL.md", integrity: sri(skill("web-research")) } },
      },
    });
    expect(findLockShapeError(JSON.parse(serializeLockfile(lock)))).toBeUndefined();
    expect(serializeLockfile(lock)).toContain('"capabilities": {},\n      "skills": {\n        "billing": {\n          "integrity": ');
  });

  it("changes when a skill's text changes, and not for a CRLF checkout", () => {
    const root = agent();
    const before = serializeLockfile(lockOf(root));
    const crlf = agent();
    expect(convertToCrlf(crlf)).toBeGreaterThanOrEqual(3);
    expect(serializeLockfile(lockOf(crlf))).toBe(before);
    fs.writeFileSync(path.join(root, "skills/triage/SKILL.md"), skill("triage", "New steps."));
    const after = lockOf(root);
    expect(serializeLockfile(after)).not.toBe(before);
    expect(after.surfaces["."]!.skills!["triage"]!.integrity).toBe(sri(skill("triage", "New steps.")));
  });

  it("the lock's shape accepts skills and refuses a malformed skill entry", () => {
    const lock = sampleLock();
    const withSkills = { ...lock, surfaces: { ...lock.surfaces, ".": { ...lock.surfaces["."]!, skills: { triage: { path: "skills/triage/SKILL.md", integrity: sri("x") } } } } };
    expect(findLockShapeError(withSkills)).toBeUndefined();
    const extra = { ...withSkills, surfaces: { ...withSkills.surfaces, ".": { ...withSkills.surfaces["."], skills: { triage: { path: "skills/triage/SKILL.md", integrity: sri("x"), description: "d" } } } } };
    expect(findLockShapeError(extra)?.message).toBe('surfaces["."].skills.triage.description: is not a property of lockfileVersion 1');
    const absolute = { ...withSkills, surfaces: { ...withSkills.surfaces, ".": { ...withSkills.surfaces["."], skills: { triage: { path: "/etc/SKILL.md", integrity: sri("x") } } } } };
    expect(findLockShapeError(absolute)?.segments).toEqual(["surfaces", ".", "skills", "triage", "path"]);
  });
});
