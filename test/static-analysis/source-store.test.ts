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
});
