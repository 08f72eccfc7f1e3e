/**
 * The one "is this path inside that folder" rule (common/path-inside.ts), shared by plugin
 * containment, definitions, imports, the artifact's bundles and skills, confined writes and the
 * workspace tools (issue 8 "each rule once").
 */
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { isPathInside, relativeInside } from "../../common/path-inside.js";

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
