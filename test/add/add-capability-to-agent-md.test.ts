import { describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { addCapabilityToAgentMd } from "../../cli/add/add-capability-to-agent-md.js";
import { parseFrontMatter } from "../../compiler/agent/front-matter.js";

const OPENUI = { package: "@assemblyline-agents/openui" };

const AGENT_MD = `---
# Support agent, owned by the help-desk team.
name: support-agent   # shown in the console
description: 'Answers questions about orders.'
capabilities:
    # local plugins
    example: {}   # plugins/example
    private-search:
        config:
            index: products   # the product index
        # more search options later

# keep this comment at the end
---

# Instructions

Be brief.
`;

/** Lines of `after` that are not in `before` (as a multiset), in order. */
function addedLines(before: string, after: string): string[] {
  const remaining = before.split("\n");
  const added: string[] = [];
  for (const line of after.split("\n")) {
    const index = remaining.indexOf(line);
    if (index === -1) added.push(line);
    else remaining.splice(index, 1);
  }
  expect(remaining.filter((l) => l !== "")).toEqual([]); // nothing of the original was lost
  return added;
}

function frontMatter(text: string): unknown {
  return parseDocument(text.slice(0, text.indexOf("\n---", 4) + 1)).toJS();
}

describe("addCapabilityToAgentMd", () => {
  it("adds the entry after the last capability and keeps every other line byte for byte", () => {
    const result = addCapabilityToAgentMd(AGENT_MD, "openui", { ...OPENUI, config: { brand: { name: "Example" } } });
    expect(result.changed).toBe(true);
    expect(result.diagnostics).toEqual([]);
    // the file's own 4-space indentation is used for the new lines
    expect(addedLines(AGENT_MD, result.text)).toEqual([
      "    openui:",
      '        package: "@assemblyline-agents/openui"',
      "        config:",
      "            brand:",
      "                name: Example",
    ]);
    // comments, quoting, spacing before comments and the body all survive, in place
    expect(result.text).toContain("name: support-agent   # shown in the console\ndescription: 'Answers questions about orders.'");
    expect(result.text).toContain("            index: products   # the product index\n        # more search options later\n    openui:");
    expect(result.text.endsWith("\n# keep this comment at the end\n---\n\n# Instructions\n\nBe brief.\n")).toBe(true);
    expect(frontMatter(result.text)).toMatchObject({
      capabilities: { example: {}, "private-search": { config: { index: "products" } }, openui: { package: "@assemblyline-agents/openui", config: { brand: { name: "Example" } } } },
    });
    expect(Object.keys((frontMatter(result.text) as { capabilities: object }).capabilities)).toEqual(["example", "private-search", "openui"]);
  });

  it("changes nothing the second time", () => {
    const once = addCapabilityToAgentMd(AGENT_MD, "openui", OPENUI);
    const twice = addCapabilityToAgentMd(once.text, "openui", OPENUI);
    expect(twice).toEqual({ text: once.text, changed: false, diagnostics: [] });
  });

  it("adds a capabilities block when there is none, and a front matter when there is none", () => {
    const noCaps = "---\nname: x   # n\n---\nBody\n";
    expect(addCapabilityToAgentMd(noCaps, "openui", OPENUI).text).toBe('---\nname: x   # n\ncapabilities:\n  openui:\n    package: "@assemblyline-agents/openui"\n---\nBody\n');
    expect(addCapabilityToAgentMd("# Title\n\nBody\n", "openui", OPENUI).text).toBe(
      '---\ncapabilities:\n  openui:\n    package: "@assemblyline-agents/openui"\n---\n# Title\n\nBody\n',
    );
    expect(addCapabilityToAgentMd("---\n---\nBody\n", "openui", OPENUI).text).toBe('---\ncapabilities:\n  openui:\n    package: "@assemblyline-agents/openui"\n---\nBody\n');
  });

  it("fills an empty `capabilities:` and keeps its comment", () => {
    const text = "---\nname: x\ncapabilities:   # none yet\n---\n";
    expect(addCapabilityToAgentMd(text, "openui", OPENUI).text).toBe('---\nname: x\ncapabilities:   # none yet\n  openui:\n    package: "@assemblyline-agents/openui"\n---\n');
  });

  it("adds package to an entry whose config was written first (seed style), keeping the config", () => {
    const text = "---\ncapabilities:\n  openui:\n    config:\n      brand:\n        name: Example   # keep\n---\n";
    expect(addCapabilityToAgentMd(text, "openui", { ...OPENUI, config: { ignored: true } }).text).toBe(
      '---\ncapabilities:\n  openui:\n    package: "@assemblyline-agents/openui"\n    config:\n      brand:\n        name: Example   # keep\n---\n',
    );
  });

  it("keeps CRLF line ends and a BOM", () => {
    const text = "\uFEFF---\r\nname: x\r\ncapabilities:\r\n  example: {}\r\n---\r\nBody\r\n";
    const result = addCapabilityToAgentMd(text, "openui", OPENUI);
    expect(result.text).toBe('\uFEFF---\r\nname: x\r\ncapabilities:\r\n  example: {}\r\n  openui:\r\n    package: "@assemblyline-agents/openui"\r\n---\r\nBody\r\n');
  });

  it("splices into flow mappings, keeping every other byte (spacing before comments, CRLF, BOM)", () => {
    // The audit's case: spacing before comments collapsed when the whole front matter was re-rendered.
    const text = "\uFEFF---\r\nname: t    # c2\r\ncapabilities: { other: {} }  # c3\r\n# c4\r\n---\r\n";
    expect(addCapabilityToAgentMd(text, "openui", OPENUI).text).toBe(
      '\uFEFF---\r\nname: t    # c2\r\ncapabilities: { other: {}, openui: { package: "@assemblyline-agents/openui" } }  # c3\r\n# c4\r\n---\r\n',
    );
    // An existing flow entry without a package gets it as its first member; an empty one gets it alone.
    expect(addCapabilityToAgentMd("---\ncapabilities:\n  openui: { config: { a: 1 } }   # keep\n---\n", "openui", OPENUI).text).toBe(
      '---\ncapabilities:\n  openui: { package: "@assemblyline-agents/openui", config: { a: 1 } }   # keep\n---\n',
    );
  });

  it("turns an empty `capabilities: {}` into a block mapping (not JSON inside a flow map)", () => {
    expect(addCapabilityToAgentMd("---\nname: x\ncapabilities: {}\n---\nBody\n", "openui", OPENUI).text).toBe(
      '---\nname: x\ncapabilities:\n  openui:\n    package: "@assemblyline-agents/openui"\n---\nBody\n',
    );
    // A comment after the braces stays on the capabilities line; CRLF and deeper indentation are kept.
    expect(addCapabilityToAgentMd("---\r\nagent:\r\n    name: x\r\ncapabilities: { }  # none yet\r\n---\r\n", "openui", OPENUI).text).toBe(
      '---\r\nagent:\r\n    name: x\r\ncapabilities:  # none yet\r\n    openui:\r\n        package: "@assemblyline-agents/openui"\r\n---\r\n',
    );
    const withConfig = addCapabilityToAgentMd("---\ncapabilities: {}\n---\n", "openui", { package: "@assemblyline-agents/openui", config: { brand: { name: "Example" } } });
    expect(withConfig.text).toBe('---\ncapabilities:\n  openui:\n    package: "@assemblyline-agents/openui"\n    config:\n      brand:\n        name: Example\n---\n');
  });

  it("falls back to the Document API for explicit null, keeping the rest", () => {
    const explicitNull = addCapabilityToAgentMd("---\n# agent\nname: x\ncapabilities: null\n---\nBody\n", "openui", OPENUI);
    expect(frontMatter(explicitNull.text)).toEqual({ name: "x", capabilities: { openui: OPENUI } });
    expect(explicitNull.text.startsWith("---\n# agent\nname: x\n")).toBe(true);
    expect(explicitNull.text.endsWith("---\nBody\n")).toBe(true);
  });

  it("refuses to replace another package, and reports broken or non-mapping front matter, leaving the text alone", () => {
    const other = "---\ncapabilities:\n  openui:\n    package: \"@acme/openui\"\n---\n";
    const conflict = addCapabilityToAgentMd(other, "openui", OPENUI, "/agent/agent.md");
    expect(conflict.changed).toBe(false);
    expect(conflict.text).toBe(other);
    expect(conflict.diagnostics).toEqual([
      expect.objectContaining({
        code: "AL6206",
        file: "/agent/agent.md",
        line: 4,
        column: 14,
        message: "capabilities.openui already selects '@acme/openui'; it is not replaced with '@assemblyline-agents/openui'.",
        hint: "Choose another key with `--as <key>`, or remove capabilities.openui from agent.md first.",
      }),
    ]);
    const broken = addCapabilityToAgentMd("---\nname: [x\n---\n", "openui", OPENUI);
    // The same code, place, message and hint as compile's for the same fault (helper-73: AL6204 here, AL1006 there).
    expect(broken.diagnostics).toEqual(parseFrontMatter("agent.md", "---\nname: [x\n---\n").diagnostics);
    expect(broken.diagnostics.map((d) => [d.code, d.line])).toEqual([["AL1006", 2]]);
    expect(addCapabilityToAgentMd("---\ncapabilities:\n  - openui\n---\n", "openui", OPENUI).diagnostics.map((d) => [d.code, d.line])).toEqual([["AL6205", 3]]);
    expect(addCapabilityToAgentMd("---\n- a\n---\n", "openui", OPENUI).diagnostics.map((d) => d.code)).toEqual(["AL6205"]);
    expect(addCapabilityToAgentMd("---\nname: x\n", "openui", OPENUI).diagnostics).toEqual(parseFrontMatter("agent.md", "---\nname: x\n").diagnostics);
    expect(addCapabilityToAgentMd("\uFEFF---\r\nname: x\r\n", "openui", OPENUI).diagnostics).toEqual(parseFrontMatter("agent.md", "\uFEFF---\r\nname: x\r\n").diagnostics);
    expect(addCapabilityToAgentMd("---\nname: x\n", "openui", OPENUI).diagnostics.map((d) => d.code)).toEqual(["AL1005"]);
  });

  it("inserts after a last capability whose value is a block scalar", () => {
    const text = "---\ncapabilities:\n  example:\n    config:\n      prompt: |\n        line one\n\n        line two\n---\n";
    const result = addCapabilityToAgentMd(text, "openui", OPENUI);
    expect(frontMatter(result.text)).toEqual({ capabilities: { example: { config: { prompt: "line one\n\nline two\n" } }, openui: OPENUI } });
    expect(addedLines(text, result.text)).toEqual(["  openui:", '    package: "@assemblyline-agents/openui"']);
  });
});
