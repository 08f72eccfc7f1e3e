/**
 * Bad input never crashes and never passes silently: BOM, CRLF, empty files, invalid UTF-8,
 * huge and deeply nested files, prototype-named keys, unreadable files.
 */
import { describe, expect, it } from "vitest";
import { parseJsonDocument } from "../../compiler/plugin-package/json-document.js";
import { MAX_JSON_DEPTH } from "../../common/json-nesting.js";
import { manifestOutcome } from "../../compiler/plugin-package/index.js";
import { expectDiagnostic, load, MANIFEST, mcpJson, PLUGIN_SCHEMA, skill } from "./helpers.js";

describe("encodings and line ends", () => {
  it("a BOM takes no column; CRLF counts as one line end", () => {
    const pkg = load({ "plugin.json": `\uFEFF{\r\n  "$schema": "${PLUGIN_SCHEMA}",\r\n  "name": "demo", "extra": 1\r\n}\r\n` });
    expect(pkg.rejected).toBe(false);
    expectDiagnostic(pkg, { code: "AL2102", file: "plugin.json", line: 3, column: 19, path: "extra" });
    // Why a closed schema's unknown field is only a warning (README trial of 6 December, C5).
    expect(pkg.diagnostics.find((d) => d.code === "AL2102")?.message).toBe(
      "Unknown top-level field 'extra' in plugin.json is ignored: the manifest schema is closed, and a client reports each unknown field and keeps loading, so this is a warning (Agent Plugins v1 §5.2).",
    );
    const firstLine = load({ "plugin.json": `\uFEFF{"extra": 1, "$schema": "${PLUGIN_SCHEMA}", "name": "demo"}` });
    expectDiagnostic(firstLine, { code: "AL2102", file: "plugin.json", line: 1, column: 2, path: "extra" });
  });

  it("a BOM and CRLF in SKILL.md", () => {
    const pkg = load({ "skills/a/SKILL.md": "\uFEFF---\r\nname: b\r\ndescription: d\r\n---\r\nBody\r\n" });
    expectDiagnostic(pkg, { code: "AL2208", file: "skills/a/SKILL.md", line: 2, column: 7, path: "name" });
    expect(load({ "skills/a/SKILL.md": "\uFEFF---\r\nname: a\r\ndescription: d\r\n---\r\n" }).skills).toHaveLength(1);
    expect(load({ "skills/a/SKILL.md": "---\rname: a\rdescription: d\r---\r" }).skills).toHaveLength(1);
  });

  it("AL2006: plugin.json that is not UTF-8 rejects the plugin", () => {
    const bytes = new TextEncoder().encode(MANIFEST.replace("demo", "dem\u00ff"));
    const broken = new Uint8Array([...bytes.slice(0, 30), 0xc3, 0x28, ...bytes.slice(30)]);
    const pkg = load({ "plugin.json": broken });
    expect(pkg.rejected).toBe(true);
    expectDiagnostic(pkg, { code: "AL2006", file: "plugin.json", line: 1, column: 1 });
  });

  it("AL2005: an unreadable plugin.json rejects the plugin", () => {
    const pkg = load({ "plugin.json": { unreadable: "EACCES: permission denied" } });
    expect(pkg.rejected).toBe(true);
    const d = expectDiagnostic(pkg, { code: "AL2005", file: "plugin.json", line: 1, column: 1 });
    expect(d.message).toContain("EACCES");
  });

  it("AL2004: a dangling plugin.json link rejects the plugin", () => {
    const pkg = load({ "plugin.json": { symlink: "nowhere.json" } });
    expect(pkg.rejected).toBe(true);
    expectDiagnostic(pkg, { code: "AL2004", file: "plugin.json", line: 1, column: 1 });
  });
});

describe("JSON syntax (AL2007)", () => {
  it.each([
    ["empty file", "", 1, 1, "the file is empty"],
    ["whitespace only", "  \n ", 1, 1, "the file is empty"],
    ["trailing comma", `{\n  "$schema": "${PLUGIN_SCHEMA}",\n  "name": "demo",\n}`, 3, 17, "trailing commas are not allowed in JSON"],
    // A doubled comma is an empty element, not a trailing comma (helper-64 M10); it points at the second comma.
    ["two commas in a row", `{\n  "name": "demo",,\n  "version": "0.1.0"\n}`, 2, 18, "two commas in a row (an empty element) are not allowed in JSON"],
    ["a comma before something that is not a property", `{ "name": "demo", 2 }`, 1, 19, "a property name in double quotes is expected"],
    ["comment", `{ // c\n "name": "demo" }`, 1, 3, "comments are not allowed in JSON"],
    ["single quotes", `{ 'name': 'demo' }`, 1, 3, "unexpected character"],
    ["two values", `{} {}`, 1, 4, "nothing may follow the top-level value"],
    ["unescaped control character", `{ "name": "a\u0001" }`, 1, 11, "control characters must be escaped inside strings"],
  ])("%s", (_label, text, line, column, words) => {
    const pkg = load({ "plugin.json": text });
    expect(pkg.rejected).toBe(true);
    const d = expectDiagnostic(pkg, { code: "AL2007", file: "plugin.json", line, column });
    expect(d.message).toContain(words);
  });

  it("hints at the right comma: the extra one of two in a row, the last one before a closing bracket", () => {
    const doubled = expectDiagnostic(load({ "plugin.json": `{ "name": "demo",, "version": "0.1.0" }` }), { code: "AL2007", file: "plugin.json", line: 1, column: 18 });
    expect(doubled.hint).toBe("Remove the extra comma.");
    expect(doubled.message).not.toContain("trailing");
    const trailing = expectDiagnostic(load({ "plugin.json": `{ "name": "demo", }` }), { code: "AL2007", file: "plugin.json", line: 1, column: 17 });
    expect(trailing.hint).toBe("Remove the comma before the closing bracket.");
  });

  it("deep nesting is a syntax error, not a stack overflow", () => {
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    const pkg = load({ "plugin.json": `{ "$schema": "${PLUGIN_SCHEMA}", "name": "demo", "x": ${deep} }` });
    expect(pkg.rejected).toBe(true);
    expect(pkg.diagnostics.map((d) => d.code)).toEqual(["AL2007"]);
    const document = parseJsonDocument("/x.json", `${"[".repeat(MAX_JSON_DEPTH)}${"]".repeat(MAX_JSON_DEPTH)}`);
    expect(document.syntaxError).toBeUndefined();
  });

  it("brackets inside strings do not count as nesting", () => {
    const document = parseJsonDocument("/x.json", JSON.stringify({ a: "[".repeat(10_000) + '\\"{' }));
    expect(document.syntaxError).toBeUndefined();
  });
});

describe("size and odd keys", () => {
  it("huge files load", () => {
    const description = "x".repeat(5_000_000);
    const pkg = load({
      "plugin.json": `{ "$schema": "${PLUGIN_SCHEMA}", "name": "demo", "description": "${description}" }`,
      "skills/a/SKILL.md": `${skill("a")}${"body line\n".repeat(500_000)}`,
    });
    expect(pkg.rejected).toBe(false);
    expect(pkg.skills.map((s) => s.name)).toEqual(["a"]);
  });

  it("__proto__ and constructor keys stay data and pollute nothing", () => {
    const pkg = load({
      "plugin.json": `{ "$schema": "${PLUGIN_SCHEMA}", "name": "demo", "__proto__": { "polluted": true }, "extensions": { "__proto__": { "polluted": true }, "constructor": {} } }`,
      "skills/a/SKILL.md": "---\nname: a\ndescription: d\n__proto__: x\nconstructor: y\nmetadata:\n  __proto__: z\n---\n",
    });
    expect(pkg.rejected).toBe(false);
    expect(manifestOutcome(pkg)).toBe("valid-with-warnings");
    expect(pkg.diagnostics.map((d) => [d.code, d.path])).toEqual([
      ["AL2102", "__proto__"],
      ["AL2211", "__proto__"],
      ["AL2211", "constructor"],
    ]);
    const extensions = pkg.manifest!.extensions as Record<string, unknown>;
    expect(Object.keys(extensions)).toEqual(["__proto__", "constructor"]);
    expect(Object.getPrototypeOf(extensions)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.hasOwn(pkg.manifest!, "__proto__")).toBe(false);
  });

  it("a key named like an Object.prototype member is not mistaken for a field", () => {
    const pkg = load({ "plugin.json": `{ "$schema": "${PLUGIN_SCHEMA}", "toString": "x", "name": "demo" }` });
    expect(pkg.rejected).toBe(false);
    expect(pkg.diagnostics.map((d) => [d.code, d.path])).toEqual([["AL2102", "toString"]]);
    const missing = load({ "plugin.json": `{ "$schema": "${PLUGIN_SCHEMA}", "hasOwnProperty": "x" }` });
    expect(missing.rejected).toBe(true);
  });

  it("a YAML alias bomb in front matter is an error, not a hang", () => {
    const bomb = ["a: &a [x, x, x, x, x, x, x, x, x, x]", "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]", "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]", "d: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]"];
    const pkg = load({ "skills/a/SKILL.md": `---\nname: a\ndescription: d\n${bomb.join("\n")}\n---\n` });
    expect(pkg.skills).toEqual([]);
    expect(pkg.diagnostics.map((d) => d.code)).toContain("AL2203");
  });

  it("an MCP server list of every broken shape never throws", () => {
    const pkg = load({
      "mcp.json": mcpJson({
        a: "null",
        b: "[]",
        c: `{ "type": null }`,
        d: `{ "type": "stdio", "command": 1, "args": [1, null], "env": [], "cwd": 7 }`,
        e: `{ "type": "sse", "url": 1, "headers": { "X": 1 } }`,
        f: `{ "type": "streamable-http", "url": "https://[::1", "headers": null }`,
      }),
    });
    expect(pkg.mcpStatus).toBe("configured");
    expect(pkg.mcpServers).toEqual([]);
    expect((pkg.skippedMcpServers ?? []).map((s) => s.name)).toEqual(["a", "b", "c", "d", "e", "f"]);
    expect(pkg.diagnostics.every((d) => d.line >= 1 && d.column >= 1)).toBe(true);
  });
});
