/**
 * Every AL2xxx code is unique, in its stage's range, reachable under its own name in the merged
 * `Diagnostics` table (no other stage's entry shadows it), documented, and produced by at least
 * one test in this folder (STYLE §7: each diagnostic code has at least one fixture).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { PluginPackageMessages } from "../../diagnostics/catalog/plugin-package.js";

const entries = Object.entries(PluginPackageMessages);
const here = path.dirname(fileURLToPath(import.meta.url));

describe("AL2xxx catalog", () => {
  it("codes are unique and in the AL2 range", () => {
    const codes = entries.map(([, message]) => message.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const code of codes) expect(code).toMatch(/^AL2\d{3}$/);
  });

  it("no other stage shadows an entry name", () => {
    for (const [name, message] of entries) expect((Diagnostics as Record<string, unknown>)[name], name).toBe(message);
  });

  it("every entry says why (docs cite the rule) and its message says what happens", () => {
    for (const [name, message] of entries) {
      expect(message.docs.length, name).toBeGreaterThan(20);
      expect(message.message.endsWith("."), name).toBe(true);
    }
  });

  it("every code is exercised by a test", () => {
    const tests = fs
      .readdirSync(here)
      .filter((file) => file.endsWith(".test.ts") && file !== path.basename(fileURLToPath(import.meta.url)))
      .map((file) => fs.readFileSync(path.join(here, file), "utf8"))
      .join("\n");
    const missing = entries.map(([, message]) => message.code).filter((code) => !tests.includes(`"${code}"`));
    expect(missing).toEqual([]);
  });
});
