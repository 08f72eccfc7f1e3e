/**
 * Every form the static evaluator rejects (DESIGN §3, issue 2 item 3): one test each,
 * asserting the exact code, line, column and property path, the construct named in words,
 * the hint, and that the rest of the value is kept.
 */
import { describe, expect, it } from "vitest";
import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import { analyzeSource, brief, DIR, lines } from "./helpers.js";

/** `export default { tools: { echo: { v: <expression> } } };` starts the expression at column 38. */
const COLUMN = 38;

/**
 * Analyses the expression as `tools.echo.v` after `prelude` lines and returns its only
 * diagnostic, asserting it is at the expression (or at `column`) and that `v` was omitted.
 */
function rejectOne(expression: string, code: string, prelude: string[] = [], column = COLUMN, files: Record<string, string> = {}): Diagnostic {
  const result = analyzeSource(lines(...prelude, `export default { tools: { echo: { v: ${expression} } } };`), files);
  expect(result.diagnostics.map(brief)).toEqual([{ code, line: prelude.length + 1, column, path: "tools.echo.v" }]);
  expect(result.entry?.value).toEqual({ tools: { echo: {} } });
  return result.diagnostics[0]!;
}

describe("code that would have to run", () => {
  // One row per construct: the expression read as `tools.echo.v`, a part of the AL3201 message
  // that names the construct, and the top-level lines before the entry, if any.
  it.each<[string, string, string[]?]>([
    ['require("./schema.json")', "a function call to 'require'"],
    ['import("./schema.js")', "a dynamic import"],
    ['process.env["X"]', "'process.env[\"X\"]'"],
    ["limit", "which is declared with 'var'", ["var limit = 20;"]],
    ["Schema", "which is a class", ["class Schema {}"]],
    ["Kind", "which is an enum", ["enum Kind { A }"]],
    ["Kind.A", "a property access ('Kind.A')", ["enum Kind { A }"]],
    ["Schema", "which is a type, not a value", ["type Schema = { a: 1 };"]],
    ["a", "which is declared by destructuring", ["const { a } = { a: 1 };"]],
    ["() => 1", "Cannot read a function:"],
    ["function () { return 1; }", "Cannot read a function:"],
    ["String.raw`a`", "a tagged template"],
    ["1 + 2", "an expression with the operator '+'"],
    ['a ?? "x"', "the operator '??'", ["const a = null;"]],
    ["true ? 1 : 2", "a conditional expression"],
    ["!true", "the operator '!' applied to 'true'"],
    ["~1", "the operator '~'"],
    ["-a", "the operator '-' applied to 'a'", ["const a = 1;"]],
    ["typeof a", "a 'typeof' expression", ["const a = 1;"]],
    ["new Date()", "a 'new' expression ('new Date()')"],
    ["this", "Cannot read 'this'"],
    ["await a", "an 'await' expression", ["const a = 1;"]],
  ])("rejects %s: %s", (expression, construct, prelude = []) => {
    expect(rejectOne(expression, "AL3201", prelude).message).toContain(construct);
  });

  it("rejects a function call, saying why and what to do", () => {
    const d = rejectOne("makeSchema()", "AL3201");
    expect(d.message).toBe("Cannot read a function call to 'makeSchema': the compiler never runs plugin code.");
    // Issue 13 item 6: the hint names what works for any descriptor value, inputSchema included.
    expect(d.hint).toBe(
      'The entry is read without running it, so its values must be static: write a literal, a top-level const, or a relative import of a static const or a JSON file (import schema from "./schema.json" with { type: "json" }).',
    );
    expect(d.hint).not.toContain("definition module");
    expect(d.severity).toBe("error");
  });

  it("rejects process.env, pointing at requiredConfig", () => {
    const d = rejectOne("process.env.SEARCH_URL", "AL3201");
    expect(d.message).toBe("Cannot read 'process.env.SEARCH_URL': the compiler never runs plugin code.");
    expect(d.hint).toContain("requiredConfig");
  });

  it("rejects a reference to a let binding", () => {
    const d = rejectOne("limit", "AL3201", ["let limit = 20;"]);
    expect(d.message).toBe("Cannot read a reference to 'limit', which is declared with 'let': the compiler never runs plugin code.");
    expect(d.hint).toBe("Declare 'limit' with 'const' and a static value at the top level of the module.");
  });

  it("rejects a reference to a function", () => {
    const d = rejectOne("execute", "AL3201", ["function execute() {}"]);
    expect(d.message).toContain("a reference to 'execute', which is a function");
    expect(d.hint).toBe("Descriptors are data: keep functions in the definition module.");
  });

  it("rejects methods, getters and setters in object literals, keeping the object", () => {
    const result = analyzeSource("export default { v: { run() {}, get x() { return 1; }, set y(v) {}, a: 1 } };");
    expect(result.diagnostics.map(brief)).toEqual([
      { code: "AL3201", line: 1, column: 23, path: "v.run" },
      { code: "AL3201", line: 1, column: 33, path: "v.x" },
      { code: "AL3201", line: 1, column: 56, path: "v.y" },
    ]);
    expect(result.diagnostics.map((d) => d.message.split(":")[0])).toEqual(["Cannot read a method", "Cannot read a getter", "Cannot read a setter"]);
    expect(result.entry?.value).toEqual({ v: { a: 1 } });
  });

  it("rejects a template literal with substitutions", () => {
    const d = rejectOne("`hello ${name}`", "AL3201", ['const name = "x";']);
    expect(d.message).toBe("Cannot read a template literal with substitutions: the compiler never runs plugin code.");
  });

  it("rejects a regular expression, with the pattern as a JSON Schema hint", () => {
    const d = rejectOne("/^a+$/", "AL3201");
    expect(d.message).toContain("a regular expression (/^a+$/)");
    expect(d.hint).toContain('pattern: "^a+$"');
  });

  it("rejects a property access", () => {
    const d = rejectOne("base.schema", "AL3201", ["const base = { schema: {} };"]);
    expect(d.message).toContain("a property access ('base.schema')");
    expect(d.hint).toBe("Reference a top-level const directly, or write the value inline.");
  });

  it("rejects defineAssemblyLinePlugin when it is not imported from @assemblyline-agents/core", () => {
    const result = analyzeSource(lines("function defineAssemblyLinePlugin<T>(x: T): T { return x; }", "export default defineAssemblyLinePlugin({ tools: {} });"));
    expect(result.diagnostics.map(brief)).toEqual([{ code: "AL3201", line: 2, column: 16 }]);
    expect(result.diagnostics[0]!.message).toContain("which is not imported from '@assemblyline-agents/core'");
    expect(result.wrapped).toBe(false);
    expect(result.entry).toBeUndefined();
  });

  it("rejects the wrapper anywhere but around the default export", () => {
    const d = rejectOne("defineAssemblyLinePlugin({})", "AL3201", ['import { defineAssemblyLinePlugin } from "@assemblyline-agents/core";']);
    expect(d.message).toContain("a call to defineAssemblyLinePlugin(…) inside the plugin object");
  });
});

describe("values that are not JSON", () => {
  it("rejects undefined", () => {
    const d = rejectOne("undefined", "AL3205");
    expect(d.message).toBe("'undefined' is not a JSON value.");
    expect(d.hint).toBe("Omit the property instead (or use null).");
  });

  it.each([
    ["NaN", "'NaN' is not a JSON value."],
    ["Infinity", "'Infinity' is not a JSON value."],
    ["-Infinity", "'-Infinity' is not a JSON value."],
    ["1e999", "The number '1e999' (which is Infinity) is not a JSON value."],
    ["10n", "The BigInt literal '10n' is not a JSON value."],
    ["void 0", "A 'void' expression (which is undefined) is not a JSON value."],
  ])("rejects %s", (expression, message) => {
    expect(rejectOne(expression, "AL3205").message).toBe(message);
  });

  it("rejects an empty array slot, keeping the other elements", () => {
    const result = analyzeSource("export default { v: [1, , 2] };");
    expect(result.diagnostics.map(brief)).toEqual([{ code: "AL3205", line: 1, column: 25, path: "v[1]" }]);
    expect(result.entry?.value).toEqual({ v: [1, 2] });
  });
});

describe("keys", () => {
  it("rejects a computed key at the key, with the object's path", () => {
    const result = analyzeSource(lines("const k = 'a';", "export default { tools: { [k]: 1, b: 2 } };"));
    expect(result.diagnostics.map(brief)).toEqual([{ code: "AL3201", line: 2, column: 27, path: "tools" }]);
    expect(result.diagnostics[0]!.message).toContain("a computed key ('[k]')");
    expect(result.diagnostics[0]!.hint).toBe("Write the key as a name or a quoted string.");
    expect(result.entry?.value).toEqual({ tools: { b: 2 } });
  });

  it("rejects '__proto__' keys, quoted or not, which set the prototype", () => {
    for (const key of ["__proto__", '"__proto__"']) {
      const result = analyzeSource(`export default { tools: { ${key}: { polluted: true } } };`);
      expect(result.diagnostics.map(brief)).toEqual([{ code: "AL3203", line: 1, column: 27, path: "tools.__proto__" }]);
      expect(result.entry?.value).toEqual({ tools: {} });
      expect(Object.getPrototypeOf(result.entry?.value["tools"])).toBe(Object.prototype);
    }
  });
});

describe("names", () => {
  it("rejects an undeclared name with a did-you-mean hint", () => {
    const d = rejectOne("schemma", "AL3204", ["const schema = {};"]);
    expect(d.message).toBe("'schemma' is not declared at the top level of this module.");
    expect(d.hint).toBe("Did you mean 'schema'?");
  });

  it("rejects a global", () => {
    expect(rejectOne("globalThis", "AL3204").hint).toBe("Declare it as a top-level const in this module, or write the value inline.");
  });

  it("reports a cycle of consts, naming it", () => {
    const result = analyzeSource(lines("const a = { b };", "const b = { a };", "export default { v: a };"));
    // `b` is also read before its declaration (a ReferenceError when the module loads).
    expect(result.diagnostics.map(brief)).toEqual([
      { code: "AL3208", line: 1, column: 13, path: "v.b" },
      { code: "AL3202", line: 2, column: 13, path: "v.b.a" },
    ]);
    expect(result.diagnostics[1]!.message).toBe("'a' refers to itself: a → b → a.");
    expect(result.diagnostics[1]!.hint).toBe("Break the cycle; a static value cannot contain itself.");
    expect(result.entry?.value).toEqual({ v: { b: {} } });
  });

  it("reports a const used before its declaration, keeping the value", () => {
    const result = analyzeSource(lines("export default { v: later };", "const later = 1;"));
    expect(result.diagnostics.map(brief)).toEqual([{ code: "AL3208", line: 1, column: 21, path: "v" }]);
    expect(result.diagnostics[0]!.related).toEqual([{ file: `${DIR}/index.ts`, line: 2, column: 7, endLine: 2, endColumn: 12, message: "'later' is declared here." }]);
    expect(result.entry?.value).toEqual({ v: 1 });
  });
});

describe("spreads", () => {
  it("rejects spreading an array into an object", () => {
    const result = analyzeSource(lines("const list = [1];", "export default { v: { ...list, a: 1 } };"));
    // At the spread, with the const's value as the related location.
    expect(result.diagnostics.map(brief)).toEqual([{ code: "AL3206", line: 2, column: 23, path: "v" }]);
    expect(result.diagnostics[0]!.related).toMatchObject([{ line: 1, column: 14 }]);
    expect(result.diagnostics[0]!.message).toBe("Only an object can be spread here, but this is an array.");
    expect(result.entry?.value).toEqual({ v: { a: 1 } });
  });

  it("rejects spreading a string into an array", () => {
    const result = analyzeSource('export default { v: [..."ab"] };');
    expect(result.diagnostics.map(brief)).toEqual([{ code: "AL3206", line: 1, column: 22, path: "v" }]);
    expect(result.diagnostics[0]!.related).toBeUndefined();
    expect(result.diagnostics[0]!.message).toBe("Only an array can be spread here, but this is a string.");
  });

  it("rejects spreading something that cannot be read", () => {
    expect(analyzeSource("export default { v: { ...make() } };").diagnostics.map(brief)).toEqual([{ code: "AL3201", line: 1, column: 26, path: "v" }]);
  });
});

describe("TypeScript syntax in a JavaScript entry", () => {
  it("reports `as const` in a .js entry but keeps the value", () => {
    const result = analyzeSource('export default { v: { a: 1 } as const };', {}, `${DIR}/index.js`);
    expect(result.diagnostics.map((d) => ({ ...brief(d), file: d.file }))).toEqual([{ code: "AL3207", line: 1, column: 21, path: "v", file: `${DIR}/index.js` }]);
    expect(result.diagnostics[0]!.message).toBe("A type assertion with 'as' is TypeScript syntax, but 'index.js' is a JavaScript file.");
    expect(result.entry?.value).toEqual({ v: { a: 1 } });
  });
});

describe("default export", () => {
  it("reports a missing default export at the start of the file", () => {
    const result = analyzeSource("export const tools = {};");
    expect(result.diagnostics.map(brief)).toEqual([{ code: "AL3101", line: 1, column: 1 }]);
    expect(result.diagnostics[0]!.message).toBe("'ai.assemblyline/index.ts' has no default export.");
    expect(result.diagnostics[0]!.hint).toContain("export default { tools: { … } }");
    expect(result.entry).toBeUndefined();
  });

  it("points CommonJS entries at export default", () => {
    const result = analyzeSource("module.exports = { tools: {} };", {}, `${DIR}/index.js`);
    expect(result.diagnostics.map((d) => d.code)).toEqual(["AL3101"]);
    expect(result.diagnostics[0]!.hint).toBe("The entry is an ECMAScript module: replace 'module.exports = …' with 'export default …'.");
  });

  it("rejects a default export that is not an object", () => {
    const result = analyzeSource('export default ["a"];');
    expect(result.diagnostics.map(brief)).toEqual([{ code: "AL3102", line: 1, column: 16 }]);
    expect(result.diagnostics[0]!.message).toBe("The entry's default export must be an object, but it is an array.");
    expect(result.entry).toBeUndefined();
  });

  it("rejects a default-exported function or class", () => {
    const fn = analyzeSource("export default function plugin() { return {}; }");
    expect(fn.diagnostics.map(brief)).toEqual([{ code: "AL3201", line: 1, column: 1 }]);
    expect(fn.diagnostics[0]!.message).toContain("Cannot read a function:");
    expect(analyzeSource("export default class Plugin {}").diagnostics[0]!.message).toContain("Cannot read a class:");
  });

  it("reports a second default export", () => {
    const result = analyzeSource(lines("export default { a: 1 };", "const b = {};", "export { b as default };"));
    expect(result.diagnostics.map(brief)).toEqual([{ code: "AL3103", line: 3, column: 10 }]);
    expect(result.diagnostics[0]!.related?.[0]).toMatchObject({ line: 1, column: 1, message: "The first default export is here." });
    expect(result.entry?.value).toEqual({ a: 1 });
  });

  it("rejects defineAssemblyLinePlugin with other than one argument", () => {
    const result = analyzeSource(lines('import { defineAssemblyLinePlugin } from "@assemblyline-agents/core";', "export default defineAssemblyLinePlugin({}, {});"));
    expect(result.diagnostics.map(brief)).toEqual([{ code: "AL3104", line: 2, column: 16 }]);
    expect(result.diagnostics[0]!.message).toBe("defineAssemblyLinePlugin(…) takes exactly one object argument, but is given 2 arguments.");
    expect(result.wrapped).toBe(true);
    expect(result.entry).toBeUndefined();
  });
});

describe("reporting", () => {
  it("reports every problem of a file, sorted, and keeps what evaluated", () => {
    const result = analyzeSource(
      lines(
        "let limit = 3;",
        "export default {",
        "  tools: {",
        "    echo: {",
        '      description: "Echo.",',
        "      inputSchema: { type: `obj${'ect'}`, properties: { message: { type: make() } } },",
        "      config: { limit },",
        "    },",
        "  },",
        "};",
      ),
    );
    expect(result.diagnostics.map(brief)).toEqual([
      { code: "AL3201", line: 6, column: 28, path: "tools.echo.inputSchema.type" },
      { code: "AL3201", line: 6, column: 74, path: "tools.echo.inputSchema.properties.message.type" },
      { code: "AL3201", line: 7, column: 17, path: "tools.echo.config.limit" },
    ]);
    expect(result.entry?.value).toEqual({
      tools: { echo: { description: "Echo.", inputSchema: { properties: { message: {} } }, config: {} } },
    });
  });

  it("never names an AST kind", () => {
    const result = analyzeSource("export default { a: f(), b: x.y, c: `${1}`, d: 1 + 1, e: new X(), f: /x/, g: !x, h: a ? b : c, i: () => 1 };");
    for (const d of result.diagnostics) {
      expect(d.message).not.toMatch(/Expression|Literal|Keyword|Token|Declaration|SyntaxKind|Identifier/);
    }
    expect(result.diagnostics).toHaveLength(9);
  });
});
