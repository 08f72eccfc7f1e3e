/**
 * `derivedRealpath` (common/host.ts, issue 14 item 1) answers `realpath` from the folder's real
 * path where that is certain. Whatever it derives must be exactly what `realpath` says: compared
 * here for every path of a tree full of links (to files, to folders, through linked folders,
 * chains, broken links, a loop, links out of the tree), with `.`/`..`, trailing separators and
 * missing paths, on the real file system. The plugin-root confinement rule relies on these answers.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createNodeHost, derivedRealpath } from "../../common/host.js";
import { buildLinkTree } from "../helpers/link-tree.js";

const base = fs.mkdtempSync(path.join(os.tmpdir(), "al-realpath-"));
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

const tree = (): string => buildLinkTree(base);

function allPaths(root: string): string[] {
  const out = [root, path.dirname(root), "/", `${root}/`, `${root}/plugins/.`, `${root}/plugins/p/..`, `${root}/plugins//p`, `${root}/missing/file.ts`, `${root}/plugins/p/ai.assemblyline/index.ts/x`];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      out.push(full);
      if (entry.isDirectory()) walk(full);
    }
  };
  walk(root);
  out.push(`${root}/p-alias/`, `${root}/plugins/p/linked-dir/`, `${root}/plugins/p/linked-file.ts/`);
  for (const via of ["plugins/p/linked-dir/deep/tool.ts", "plugins/p/linked-dir/deep", "p-alias/ai.assemblyline/index.ts", "p-alias/linked-dir/deep/tool.ts", "plugins/p/out/secret.ts", "plugins/p/loop-a/x", "plugins/p/broken.ts/x"]) {
    out.push(path.join(root, via));
  }
  return out;
}

describe("derivedRealpath", () => {
  it("answers exactly as realpath for every path of a tree of links, whatever order they are asked in", () => {
    const root = tree();
    const host = createNodeHost();
    const paths = allPaths(root);
    for (const order of [paths, [...paths].reverse()]) {
      let asked = 0;
      const realpath = derivedRealpath(host.kind, (file) => {
        asked++;
        return host.realpath(file);
      });
      for (const file of order) expect(realpath(file), file).toBe(host.realpath(file));
      // On Linux only links, missing paths and unnormalized ones are asked (about half of the paths here).
      if (process.platform === "linux") expect(asked).toBeLessThan(new Set(order).size * 0.7);
      else expect(asked).toBe(new Set(order).size);
    }
  });

  it("asks realpath for every path off Linux (names may change case there)", () => {
    const root = path.join(base, "agent");
    const asked: string[] = [];
    const realpath = derivedRealpath(createNodeHost().kind, (file) => (asked.push(file), file), "darwin");
    realpath(path.join(root, "plugins/p/ai.assemblyline/index.ts"));
    expect(asked).toEqual([path.join(root, "plugins/p/ai.assemblyline/index.ts")]);
  });
});
