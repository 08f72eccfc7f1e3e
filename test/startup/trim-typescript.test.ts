/**
 * scripts/trim-typescript.mjs: the CLI bundle's TypeScript keeps only what the compiler's sources
 * read of `ts` and what that, and every statement that runs at load, reaches (docs/performance.md,
 * "Incremental compiles with packaging", thirteenth round). On a small file of
 * `typescript.js`'s shape: what nothing reaches goes, with its exports (a namespace object's
 * members one by one when read as `ns.member`); what is kept still runs;
 * a registering function's calls stay whenever something kept reads what they fill; an unused
 * `/* @__PURE__ *\/` call goes unless its arguments do something; the `diag(…)` message table is
 * kept member by member, and a codefix's `mapDefined(Object.keys(Diagnostics), …)` goes unless
 * something reads it or it does something (fourteenth round); a file of another shape (a name
 * declared twice included) fails the build instead of being copied wrong.
 */
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import * as vm from "node:vm";
import type * as TsMorph from "ts-morph";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/temp-tree.js";

interface Trimmed {
  readonly text: string;
  readonly statements: readonly [number, number];
  readonly exports: readonly [number, number];
}
type Trim = (ts: typeof TsMorph.ts, text: string, keep: readonly string[]) => Trimmed;

const { trimTypeScript } = (await import(pathToFileURL(path.join(repoRoot, "scripts", "trim-typescript.mjs")).href)) as { trimTypeScript: Trim };
const { default: ts } = (await import("typescript")) as unknown as { default: typeof TsMorph.ts };

/** A file of `typescript.js`'s shape: one arrow function declaring everything, one `__export` of its names. */
const SOURCE = `/*! licence */
var ts = {}; ((module) => {
"use strict";
var __export = (target, all) => {
  for (var name in all) Object.defineProperty(target, name, { get: all[name], enumerable: true });
};
var typescript_exports = {};
__export(typescript_exports, {
  Kind: () => Kind,
  check: () => check,
  fixCount: () => fixCount,
  parse: () => parse,
  Tools: () => ts_Tools_exports,
  lazyValue: () => lazyValue,
  utilKeys: () => utilKeys
});
module.exports = typescript_exports;
var Kind = ((Kind2) => {
  Kind2[Kind2["A"] = 1] = "A";
  return Kind2;
})(Kind || {});
function parse(text) {
  return helper(text) + ts_Util_exports.twice(1);
}
var ts_Util_exports = {};
__export(ts_Util_exports, { heavy: () => heavy, twice: () => twice });
function twice(n) {
  return 2 * n;
}
function heavy() {
  return "heavy";
}
function utilKeys() {
  return Object.keys(ts_Util_exports).join();
}
var Lazy;
((Lazy2) => {
  Lazy2.value = 7;
})(Lazy || (Lazy = {}));
function lazyValue() {
  return Lazy.value;
}
var Color = /* @__PURE__ */ ((Color2) => {
  Color2[Color2["Red"] = 0] = "Red";
  return Color2;
})(Color || {});
function make(value) {
  return value;
}
function touch() {
  globalThis.touched = true;
  return 1;
}
var made = /* @__PURE__ */ make(touch());
function helper(text) {
  return text.length + Kind.A;
}
function check(text) {
  return unusedHelper(text) + new Checker().run();
}
function unusedHelper(text) {
  return text;
}
var Checker = class {
  run() { return Checker.runs++; }
};
Checker.runs = 0;
var ts_Tools_exports = {};
__export(ts_Tools_exports, { check: () => check });
var fixes = new Map();
function registerCodeFix(fix) {
  fixes.set(fix.name, fix);
}
registerCodeFix({ name: "a" });
function fixCount() {
  return fixes.size;
}
0 && (module.exports = { Kind, check, fixCount, parse, Tools });
})({ get exports() { return ts; }, set exports(v) { ts = v; } });
`;

/**
 * {@link SOURCE} with a message table of TypeScript's shape (`var Diagnostics = { X: diag(…) }`),
 * a parser function reading one member, a codefix's `mapDefined(Object.keys(Diagnostics), …)` and
 * a function reading the whole table. `change` edits the added text (a guard's counter-example).
 */
function withMessages(change: (text: string) => string = (text) => text): string {
  const exports = `  messageOf: () => messageOf,\n  allCodes: () => allCodes,\n  errorCount: () => errorCount,\n`;
  const added = change(`function diag(code, category, key, message) {
  return { code, category, key, message };
}
var Diagnostics = {
  Unterminated: diag(1002, 1 /* Error */, "Unterminated_1002", "Unterminated string literal."),
  Identifier_expected: diag(1003, 1 /* Error */, "Identifier_expected_1003", "Identifier expected.", void 0),
  Unused_label: diag(7028, 2 /* Suggestion */, "Unused_label_7028", "Unused label.", true)
};
function mapDefined(array, mapFn) {
  const result = [];
  if (array !== void 0) {
    for (let i = 0; i < array.length; i++) {
      const mapped = mapFn(array[i], i);
      if (mapped !== void 0) {
        result.push(mapped);
      }
    }
  }
  return result;
}
function messageOf() {
  return Diagnostics.Identifier_expected.message;
}
var errorCodes = mapDefined(Object.keys(Diagnostics), (key) => {
  const diag2 = Diagnostics[key];
  return diag2.category === 1 /* Error */ ? diag2.code : void 0;
});
function errorCount() {
  return errorCodes.length;
}
function allCodes() {
  return Object.keys(Diagnostics).map((key) => Diagnostics[key].code).join();
}
`);
  return SOURCE.replace("__export(typescript_exports, {\n", `__export(typescript_exports, {\n${exports}`).replace("0 && (module.exports", `${added}0 && (module.exports`);
}

/** Runs a trimmed text and returns its `ts`. */
function load(text: string): Record<string, unknown> {
  return vm.runInNewContext(`${text}\nts`) as Record<string, unknown>;
}

describe("trimTypeScript (scripts/trim-typescript.mjs)", () => {
  it("removes what nothing kept reaches, with its exports, and what is kept still runs", () => {
    const trimmed = trimTypeScript(ts, SOURCE, ["parse"]);
    const kept = load(trimmed.text);
    expect(Object.keys(kept).sort()).toEqual(["Kind", "parse"]);
    expect((kept["parse"] as (text: string) => number)("abc")).toBe(6);
    for (const gone of ["function check", "unusedHelper", "var Checker", "Checker.runs", "ts_Tools_exports", "registerCodeFix", "0 &&", "Lazy2", "function heavy", "heavy: () => heavy"]) expect(trimmed.text).not.toContain(gone);
    expect(trimmed.text).toContain("twice: () => twice");
    expect(trimmed.text.startsWith("/*! licence */")).toBe(true);
    expect(trimmed.exports).toEqual([7, 2]);
  });

  it("keeps one member of a namespace object read as `ns.member`, all of it when read otherwise, and a namespace's filling with its name", () => {
    const all = load(trimTypeScript(ts, SOURCE, ["utilKeys"]).text);
    expect((all["utilKeys"] as () => string)()).toBe("heavy,twice");
    const lazy = load(trimTypeScript(ts, SOURCE, ["lazyValue"]).text);
    expect((lazy["lazyValue"] as () => number)()).toBe(7);
  });

  it("keeps an export by its name when it returns another binding, and what that reaches", () => {
    const kept = load(trimTypeScript(ts, SOURCE, ["Tools"]).text);
    expect(Object.keys(kept).sort()).toEqual(["Kind", "Tools", "check"]);
    const tools = kept["Tools"] as { check: (text: string) => number };
    expect(tools.check("x")).toBe("x0");
  });

  it("keeps a registering function's calls while something kept reads the registry they fill", () => {
    const kept = load(trimTypeScript(ts, SOURCE, ["fixCount"]).text);
    expect((kept["fixCount"] as () => number)()).toBe(1);
  });

  it("removes an unused binding of a `/* @__PURE__ */` call, but not of one whose arguments do something", () => {
    const trimmed = trimTypeScript(ts, SOURCE, ["parse"]);
    expect(trimmed.text).not.toContain("Color2");
    const context: { touched?: boolean } = {};
    vm.runInNewContext(trimmed.text, context);
    expect(context.touched).toBe(true);
  });

  it("keeps a message table (`diag(…)` members) member by member, and drops a codefix's `mapDefined(Object.keys(table), …)` nothing reads", () => {
    const trimmed = trimTypeScript(ts, withMessages(), ["messageOf"]);
    const kept = load(trimmed.text);
    expect((kept["messageOf"] as () => string)()).toBe("Identifier expected.");
    expect(trimmed.text).toContain("Identifier_expected: diag(1003");
    for (const gone of ["Unterminated", "Unused_label", "errorCodes", "function mapDefined"]) expect(trimmed.text).not.toContain(gone);
  });

  it("keeps the whole message table when something kept reads it otherwise than by member", () => {
    const all = load(trimTypeScript(ts, withMessages(), ["allCodes"]).text);
    expect((all["allCodes"] as () => string)()).toBe("1002,1003,7028");
    // The codefix's list, read by something kept, is computed from every message.
    const errors = load(trimTypeScript(ts, withMessages(), ["errorCount"]).text);
    expect((errors["errorCount"] as () => number)()).toBe(2);
  });

  it("keeps a codefix's list, and so every message, when its callback does something or the helpers are not TypeScript's", () => {
    const calling = trimTypeScript(ts, withMessages((text) => text.replace("const diag2 = Diagnostics[key];", "const diag2 = Diagnostics[key]; globalThis.seen = key;")), ["messageOf"]);
    expect(calling.text).toContain("Unterminated:");
    const context: { seen?: string } = {};
    vm.runInNewContext(calling.text, context);
    expect(context.seen).toBe("Unused_label");
    const otherMap = trimTypeScript(ts, withMessages((text) => text.replace("result.push(mapped);", "result.push(mapped); globalThis.mapped = true;")), ["messageOf"]);
    expect(otherMap.text).toContain("Unused_label:");
  });

  it("keeps every member of a table whose `diag` does more than build an object", () => {
    const trimmed = trimTypeScript(ts, withMessages((text) => text.replace("return { code, category, key, message };", "globalThis.made = (globalThis.made ?? 0) + 1;\n  return { code, category, key, message };")), ["messageOf"]);
    const context: { made?: number } = {};
    vm.runInNewContext(trimmed.text, context);
    expect(context.made).toBe(3);
  });

  it("fails on a file of another shape", () => {
    expect(() => trimTypeScript(ts, SOURCE.replace("function heavy()", "function twice()"), [])).toThrow(/twice is declared twice/);
    expect(() => trimTypeScript(ts, "module.exports = {};", [])).toThrow(/is not `var ts = \{\}/);
    expect(() => trimTypeScript(ts, SOURCE.replace("__export(typescript_exports", "__export(other_exports"), [])).toThrow(/no `__export\(typescript_exports/);
    expect(() => trimTypeScript(ts, SOURCE.replace("parse: () => parse", "parse"), [])).toThrow(/is not `name: \(\) => binding`/);
  });
});
