/**
 * The dist build's up-to-date check (scripts/build-dist.mjs, `planEmit`): a source's JavaScript is
 * emitted again only when its bytes changed or its `.js` is missing, the declarations (all of
 * them) when any source changed, appeared or went, and everything when the key is missing, of
 * another format or made with something else (the stamp).
 */
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/temp-tree.js";

interface Plan {
  readonly js: readonly string[];
  readonly declarations: boolean;
  readonly removed: readonly string[];
}
interface BuildDistModule {
  planEmit(key: unknown, stamp: unknown, hashes: Record<string, string>, exists: (output: string) => boolean): Plan;
  outputsOf(source: string): { js: readonly string[]; dts: string };
  listSources(repo?: string): readonly string[];
}
// scripts/ is plain ESM JavaScript without declarations; the test names the types it uses.
const { planEmit, outputsOf, listSources } = (await import(pathToFileURL(path.join(repoRoot, "scripts", "build-dist.mjs")).href)) as BuildDistModule;

const stamp = { script: "s", config: "c", base: "b", typescript: "6.0.3", esbuild: "0.28.2" };
const hashes = { "cli/a.ts": "1", "cli/b.ts": "2" };
const key = { format: 1, stamp, sources: hashes };
const all = (): boolean => true;

describe("planEmit", () => {
  it("emits nothing when every source and output is as the key records", () => {
    expect(planEmit(key, stamp, hashes, all)).toEqual({ js: [], declarations: false, removed: [] });
  });

  it("emits everything without a usable key: none, another format, another stamp", () => {
    const everything = { js: ["cli/a.ts", "cli/b.ts"], declarations: true, removed: [] };
    expect(planEmit(null, stamp, hashes, all)).toEqual(everything);
    expect(planEmit({ ...key, format: 0 }, stamp, hashes, all)).toEqual(everything);
    expect(planEmit(key, { ...stamp, typescript: "6.0.4" }, hashes, all)).toEqual(everything);
  });

  it("emits a changed or new source's JavaScript, and every declaration file", () => {
    expect(planEmit(key, stamp, { ...hashes, "cli/b.ts": "3" }, all)).toEqual({ js: ["cli/b.ts"], declarations: true, removed: [] });
    expect(planEmit(key, stamp, { ...hashes, "cli/c.ts": "4" }, all)).toEqual({ js: ["cli/c.ts"], declarations: true, removed: [] });
  });

  it("names a source that went, and emits the declarations again", () => {
    expect(planEmit(key, stamp, { "cli/a.ts": "1" }, all)).toEqual({ js: [], declarations: true, removed: ["cli/b.ts"] });
  });

  it("emits a source's JavaScript when its .js is missing, not when only its map is (the CLI bundle's stubs remove theirs)", () => {
    expect(planEmit(key, stamp, hashes, (output) => output !== "cli/a.js")).toEqual({ js: ["cli/a.ts"], declarations: false, removed: [] });
    expect(planEmit(key, stamp, hashes, (output) => output !== "cli/a.js.map")).toEqual({ js: [], declarations: false, removed: [] });
  });

  it("emits the declarations when a declaration file is missing", () => {
    expect(planEmit(key, stamp, hashes, (output) => output !== "cli/b.d.ts")).toEqual({ js: [], declarations: true, removed: [] });
  });
});

describe("the sources and their outputs", () => {
  it("names a source's JavaScript, source map and declarations", () => {
    expect(outputsOf("build/compile.ts")).toEqual({ js: ["build/compile.js", "build/compile.js.map"], dts: "build/compile.d.ts" });
  });

  it("lists tsconfig.build.json's sources: .ts files of its folders, without hand-written .d.ts", () => {
    const sources = listSources();
    expect(sources).toContain("bin/assembly-line.ts");
    expect(sources).toContain("build/compile.ts");
    expect(sources).not.toContain("runtime-min/authoring/assets.d.ts");
    expect(sources.every((source) => source.endsWith(".ts") && !source.endsWith(".d.ts"))).toBe(true);
  });
});
