/**
 * The source store's parse (compiler/static-analysis/source-store.ts): syntax trees without
 * parent pointers (docs/performance.md, "Cold compile", "Fifth round"), with spans and
 * snippets that still address the text as read.
 */
import { describe, expect, it } from "vitest";
import { SourceStore } from "../../compiler/static-analysis/source-store.js";
import { snippet } from "../../compiler/static-analysis/describe-construct.js";
import { ts } from "../../compiler/static-analysis/typescript.js";

describe("SourceStore.module", () => {
  it("parses without parent pointers", () => {
    const module = new SourceStore().module("/a/tool.ts", "1", "export default f({ a: [1, 2] });\n");
    const statement = module.sourceFile!.statements[0]!;
    expect(statement.parent).toBeUndefined();
    let nodes = 0;
    const walk = (node: ts.Node): void => {
      nodes++;
      expect(node.parent).toBeUndefined();
      ts.forEachChild(node, walk);
    };
    walk(statement);
    expect(nodes).toBeGreaterThan(5);
  });

  it("gives spans and snippets of the text as read, after a byte order mark and comments", () => {
    const text = "\uFEFF// leading\nexport default /* c */ new   Thing( 1 );\n";
    const module = new SourceStore().module("/a/tool.ts", "1", text);
    const statement = module.sourceFile!.statements[0] as ts.ExportAssignment;
    const span = module.spanOf(statement.expression);
    expect(text.slice(span.start, span.end)).toBe("new   Thing( 1 )");
    expect(snippet(statement.expression, module.sourceFile!)).toBe("new Thing( 1 )");
    expect(module.syntaxErrors).toEqual([]);
  });

  it("reports the same syntax errors as a parse with parent pointers", () => {
    const text = "export default { a: 1,, b: };\nconst = 3;\n/** @param {strin x */ function g() {}\n";
    const module = new SourceStore().module("/a/tool.ts", "1", text);
    const withParents = ts.createSourceFile("/a/tool.ts", text, ts.ScriptTarget.ESNext, true) as ts.SourceFile & { parseDiagnostics: { start: number; length: number; messageText: string }[] };
    expect(module.syntaxErrors.map((p) => [p.start, p.end, p.message])).toEqual(
      withParents.parseDiagnostics.map((d) => [d.start, d.start + d.length, ts.flattenDiagnosticMessageText(d.messageText, " ")]),
    );
    expect(module.syntaxErrors.length).toBeGreaterThan(1);
  });

  it("does not parse JSDoc comments, and keeps the spans and syntax errors of the code around them", () => {
    const text = "/**\n * A tool.\n * @param input {string} the input\n */\nexport default { a: 1,, b: 2 };\n";
    const module = new SourceStore().module("/a/tool.ts", "1", text);
    const statement = module.sourceFile!.statements[0] as ts.ExportAssignment & { jsDoc?: unknown };
    // A parse of JSDoc attaches its nodes to the statement (the default, `JSDocParsingMode.ParseAll`).
    const documented = ts.createSourceFile("/a/tool.ts", text, ts.ScriptTarget.ESNext, false).statements[0] as ts.Statement & { jsDoc?: unknown };
    expect(documented.jsDoc).toBeDefined();
    expect(statement.jsDoc).toBeUndefined();
    const span = module.spanOf(statement.expression);
    expect(text.slice(span.start, span.end)).toBe("{ a: 1,, b: 2 }");
    expect(module.syntaxErrors.map((p) => text.slice(p.start, p.end))).toEqual([","]);
  });
});

describe("SourceStore.module and deep nesting", () => {
  it("parses a file with more opening brackets than the depth limit when they do not nest deeply", () => {
    // 600 sibling arrays: more than the 512 brackets the parse's depth check counts first.
    const text = `export default [${Array.from({ length: 600 }, () => "[1]").join(", ")}];\n`;
    const module = new SourceStore().module("/a/tool.ts", "1", text);
    expect(module.tooDeep).toBe(false);
    expect(module.sourceFile).toBeDefined();
    expect(module.syntaxErrors).toEqual([]);
  });

  it("refuses a file that nests brackets beyond the limit, and one that only seems to (brackets in a string)", () => {
    const deep = `export default ${"[".repeat(600)}${"]".repeat(600)};\n`;
    const module = new SourceStore().module("/a/deep.ts", "1", deep);
    expect(module.tooDeep).toBe(true);
    expect(module.sourceFile).toBeUndefined();
    expect(module.syntaxErrors[0]!.message).toBe("the file nests brackets more than 256 levels deep");
    // The cheap count sees 600 brackets and the cheap walk a depth of 600, but they are in a
    // string: the exact scan (TypeScript's scanner) finds no nesting, so the file is parsed.
    const quoted = `export default "${"[".repeat(600)}";\n`;
    const parsed = new SourceStore().module("/a/quoted.ts", "1", quoted);
    expect(parsed.tooDeep).toBe(false);
    expect(parsed.sourceFile).toBeDefined();
  });
});

describe("SourceStore retention", () => {
  const text = "export default { a: 1 };\n";

  it("keeps every parsed module by default (the editor), until its version changes", () => {
    const store = new SourceStore();
    const first = store.module("/a/one.ts", "1", text);
    store.module("/a/two.ts", "1", text);
    expect(store.module("/a/one.ts", "1", text)).toBe(first);
    expect(store.module("/a/one.ts", "2", text)).not.toBe(first);
  });

  it("with a bound, keeps a module only from its second parse on, and at most that many, least recently used out", () => {
    const store = new SourceStore({ retain: 2 });
    const once = store.module("/a/one.ts", "1", text);
    // Parsed once: not kept (a module only one analysis reads dies young).
    const twice = store.module("/a/one.ts", "1", text);
    expect(twice).not.toBe(once);
    expect(store.module("/a/one.ts", "1", text)).toBe(twice);
    for (const name of ["two", "three"]) {
      store.module(`/a/${name}.ts`, "1", text);
      store.module(`/a/${name}.ts`, "1", text);
    }
    // one.ts was the least recently used of three kept: dropped, parsed again.
    expect(store.module("/a/one.ts", "1", text)).not.toBe(twice);
    const three = store.module("/a/three.ts", "1", text);
    expect(store.module("/a/three.ts", "1", text)).toBe(three);
    // Whatever is kept, the tree is the same.
    expect(once.sourceFile!.statements.length).toBe(twice.sourceFile!.statements.length);
  });

  it("applies the same bound to JSON files", () => {
    const store = new SourceStore({ retain: 1 });
    const first = store.json("/a/data.json", "1", '{"a": 1}');
    const second = store.json("/a/data.json", "1", '{"a": 1}');
    expect(second).not.toBe(first);
    expect(store.json("/a/data.json", "1", '{"a": 1}')).toBe(second);
    expect(second.root?.kind).toBe("object");
    expect(second.root?.span).toMatchObject({ start: 0, end: 8 });
    expect(second.problems).toEqual(first.problems);
  });
});
