/**
 * One name rule (Agent Plugins v1 §5.5, compiler/plugin-package/plugin-name.ts) for plugin
 * names, capability keys in agent.md and `add --as` keys (issue 8 "each rule once"): the three
 * say the same thing about the same key.
 */
import { describe, expect, it } from "vitest";
import { loadAgent } from "../../compiler/agent/load-agent.js";
import { pluginNameProblems } from "../../compiler/plugin-package/plugin-name.js";
import { validateCapabilityKey } from "../../cli/add/capability-key.js";
import { createNodeHost } from "../../common/host.js";
import { writeTree } from "../helpers/temp-tree.js";
import { DiagnosticExamples } from "../../diagnostics/catalog/examples.js";

describe("the capability key rule is the plugin name rule", () => {
  it.each([["My-Search"], ["a--b"], ["-edge."], ["x".repeat(65)]])("%s", (key) => {
    const reason = pluginNameProblems(key).join("; ");
    expect(reason).not.toBe("");
    const root = writeTree({ "agent.md": `---\nname: a\ncapabilities:\n  ${JSON.stringify(key)}: {}\n---\n` });
    const [loaded] = loadAgent(createNodeHost(), root).diagnostics;
    expect(loaded).toMatchObject({ code: "AL1011", message: `Capability key '${key}' is not a valid name: ${reason}.` });
    expect(validateCapabilityKey(key)?.message).toBe(`'${key}' cannot be a capability key: ${reason}.`);
  });

  it("the catalog's examples are what the rule says (AL1011, AL6207)", () => {
    const root = writeTree({ "agent.md": "---\nname: a\ncapabilities:\n  Bad_Key: {}\n---\n" });
    expect(loadAgent(createNodeHost(), root).diagnostics[0]?.message).toBe(DiagnosticExamples.AL1011);
    expect(validateCapabilityKey("Brand UI")?.message).toBe(DiagnosticExamples.AL6207);
  });

  it("accepts what the plugin name rule accepts", () => {
    expect(pluginNameProblems("private-search.v2")).toEqual([]);
    expect(validateCapabilityKey("private-search.v2")).toBeUndefined();
  });
});
