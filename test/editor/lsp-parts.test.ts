/**
 * The language server's small parts (editor/lsp/): which agent a file belongs to, the LSP
 * form of a diagnostic, and the quick fixes built from hints and lock codes.
 */
import * as path from "node:path";
import { TextDocument } from "vscode-languageserver-textdocument";
import { describe, expect, it } from "vitest";
import { createNodeHost } from "../../common/host.js";
import { findAgentRoot } from "../../compiler/agent/agent-root.js";
import { codeActionsFor, COMPILE_COMMAND, renameEdit } from "../../editor/lsp/code-actions.js";
import { toLspDiagnostic } from "../../editor/lsp/to-lsp.js";
import { writeTree } from "../helpers/temp-tree.js";

describe("findAgentRoot", () => {
  const root = writeTree({
    "agent.md": "---\n---\n",
    "plugins/x/ai.assemblyline/index.ts": "export default { tools: {} };\n",
    "subagents/child/agent.md": "---\n---\n",
    "subagents/child/plugins/y/plugin.json": "{}\n",
    "elsewhere/subagents/lonely/agent.md": "---\n---\n",
  });
  const host = createNodeHost();

  it("finds the agent above a plugin file and climbs past subagents/<name>/", () => {
    expect(findAgentRoot(host, path.join(root, "plugins/x/ai.assemblyline/index.ts"))).toBe(root);
    expect(findAgentRoot(host, path.join(root, "subagents/child/agent.md"))).toBe(root);
    expect(findAgentRoot(host, path.join(root, "subagents/child/plugins/y/plugin.json"))).toBe(root);
    expect(findAgentRoot(host, path.join(root, "plugins.lock"))).toBe(root);
  });

  it("stops at a subagents/<name>/ folder whose parent has no agent.md, and answers undefined outside agents", () => {
    expect(findAgentRoot(host, path.join(root, "elsewhere/subagents/lonely/agent.md"))).toBe(path.join(root, "elsewhere/subagents/lonely"));
    expect(findAgentRoot(host, path.join(path.parse(root).root, "no-agent-here", "x.ts"))).toBeUndefined();
  });
});

describe("toLspDiagnostic", () => {
  it("keeps code and message, turns 1-based positions into 0-based ranges, and carries the hint", () => {
    const lsp = toLspDiagnostic({ code: "AL4001", severity: "error", message: "Unknown field.", file: "/a/x.ts", line: 3, column: 5, endLine: 3, endColumn: 15, path: "tools.echo", hint: "Did you mean 'description'?" });
    expect(lsp).toMatchObject({ code: "AL4001", source: "assembly-line", message: "Unknown field.", severity: 1, range: { start: { line: 2, character: 4 }, end: { line: 2, character: 14 } }, data: { hint: "Did you mean 'description'?", path: "tools.echo" } });
    expect(lsp.relatedInformation).toEqual([{ location: { uri: "file:///a/x.ts", range: lsp.range }, message: "Did you mean 'description'?" }]);
    expect(toLspDiagnostic({ code: "AL1", severity: "warning", message: "m", file: "/a/x", line: 1, column: 1 }).range).toEqual({ start: { line: 0, character: 0 }, end: { line: 0, character: 0 } });
  });
});

describe("quick fixes", () => {
  it("renames a token, keeping its quotes, and refuses spans of more than one token", () => {
    expect(renameEdit("descripton", "description")).toBe("description");
    expect(renameEdit('"visbile"', "visible")).toBe('"visible"');
    expect(renameEdit("'confg'", "config")).toBe("'config'");
    expect(renameEdit("a: b", "c")).toBeUndefined();
    expect(renameEdit("", "c")).toBeUndefined();
  });

  it("offers the did-you-mean edit and, for a stale lock, the compile command", () => {
    const document = TextDocument.create("file:///a/agent.md", "markdown", 1, "---\ncapabilities:\n  x:\n    confg: {}\n---\n");
    const typo = toLspDiagnostic({ code: "AL1009", severity: "error", message: "m", file: "/a/agent.md", line: 4, column: 5, endLine: 4, endColumn: 10, hint: "Did you mean 'config'?" });
    const stale = toLspDiagnostic({ code: "AL6002", severity: "error", message: "stale", file: "/a/plugins.lock", line: 1, column: 1 });
    const actions = codeActionsFor(document, [typo, stale], "/a");
    expect(actions.map((a) => a.title)).toEqual(["Change to 'config'", "Run assembly-line compile"]);
    expect(actions[0]!.edit?.changes?.["file:///a/agent.md"]).toEqual([{ range: typo.range, newText: "config" }]);
    expect(actions[1]!.command).toEqual({ title: "Run assembly-line compile", command: COMPILE_COMMAND, arguments: ["/a"] });
    expect(codeActionsFor(document, [{ ...typo, source: "other" }], "/a")).toEqual([]);
  });
});
