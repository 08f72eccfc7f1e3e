/**
 * The one "is this path inside that folder" rule (common/path-inside.ts), shared by plugin
 * containment, definitions, imports, the artifact's bundles and skills, confined writes and the
 * workspace tools (issue 8 "each rule once").
 */
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { isPathInside, relativeInside, joinListedName } from "../../common/path-inside.js";
import { seededRandom } from "../helpers/seeded-random.js";

const root = path.resolve("/tmp/agent");

describe("isPathInside", () => {
  it.each([
    ["the folder itself", root, true],
    ["a file below it", path.join(root, "a", "b.txt"), true],
    ["a name that starts with two dots", path.join(root, "..hidden"), true],
    ["a sibling with the same prefix", `${root}-other`, false],
    ["the parent", path.dirname(root), false],
    ["a path that climbs out with ..", path.join(root, "a", "..", "..", "x"), false],
    ["a relative path judged where it leads", path.relative(process.cwd(), path.join(root, "x")), true],
  ])("%s", (_label, candidate, inside) => {
    expect(isPathInside(root, candidate)).toBe(inside);
  });
});

describe("relativeInside", () => {
  it("gives the relative path inside, '' for the folder, undefined outside", () => {
    expect(relativeInside(root, path.join(root, "a", "b"))).toBe(path.join("a", "b"));
    expect(relativeInside(root, root)).toBe("");
    expect(relativeInside(root, path.dirname(root))).toBeUndefined();
  });
});

describe("relativeInside on absolute, normal paths (the fast path)", () => {
  /** The rule as written before the fast path: both paths resolved, then `path.relative`. */
  const reference = (parent: string, child: string): string | undefined => {
    const relative = path.relative(path.resolve(parent), path.resolve(child));
    if (relative === "") return "";
    if (path.isAbsolute(relative) || relative === ".." || relative.startsWith(`..${path.sep}`)) return undefined;
    return relative;
  };
  const SEGMENTS = ["a", "b", "ab", "a.b", ".", "..", "", "...", "..x", "x..", ".hidden", "a b", "é", "\\", "a\\b"];

  it("answers as path.relative of the resolved paths, on 20,000 generated pairs", () => {
    const next = seededRandom(14);
    const make = (): string => {
      const count = Math.floor(next() * 5);
      const parts = Array.from({ length: count }, () => SEGMENTS[Math.floor(next() * SEGMENTS.length)]!);
      const prefix = next() < 0.85 ? "/" : "";
      const suffix = next() < 0.1 ? "/" : "";
      return prefix + parts.join("/") + suffix;
    };
    for (let i = 0; i < 20_000; i++) {
      const parent = make();
      const child = next() < 0.5 ? `${parent}${next() < 0.5 ? "/" : ""}${make()}` : make();
      expect(relativeInside(parent, child), `${JSON.stringify(parent)} ${JSON.stringify(child)}`).toBe(reference(parent, child));
    }
  });

  it.each([
    ["/", "/", ""],
    ["/", "/a/b", "a/b"],
    ["/tmp/agent", "/tmp/agent/a", "a"],
    ["/tmp/agent", "/tmp/agent-other/a", undefined],
    ["/tmp/agent", "/tmp/agentx", undefined],
    ["/tmp/agent", "/tmp", undefined],
    ["/tmp/agent", "/tmp/agent/..hidden", "..hidden"],
    ["/tmp/agent/", "/tmp/agent/a", "a"],
    ["/tmp/agent", "/tmp/agent/a/../../x", undefined],
    ["/tmp/agent", "/tmp/agent/./a", "a"],
  ])("%s contains %s as %s", (parent, child, expected) => {
    expect(relativeInside(parent, child)).toBe(expected);
    expect(relativeInside(parent, child)).toBe(reference(parent, child));
  });
});

describe("joinListedName", () => {
  it("is path.join of a folder and a name a listing gives, for every kind of folder path", () => {
    const dirs = ["/", "/a", "/a/b", "/a/b/", "//a", "/a//b", "/a/./b", "/a/../b", "/a/.", "/a/..", "/..", "a/b", "", ".", "/tmp/al agent/plugins/ü", "/a/.b", "/a/b."];
    const names = ["x", ".x", "...", "x y", "ü", "x.ts", "-"];
    for (const dir of dirs) for (const name of names) expect(joinListedName(dir, name), JSON.stringify([dir, name])).toBe(path.join(dir, name));
  });
});
