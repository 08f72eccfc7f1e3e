/**
 * AL6214: a dependency of the agent's package.json by a path outside its repository (the
 * toolchain's own `file:../assembly-line` of the new-user trial of 6 December), reported by
 * compile and `compile --check` as `add` reports its own (AL6213): one rule,
 * `compiler/agent/dependency-paths.ts`.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { compileAgent } from "../../build/compile.js";
import { createNodeHost } from "../../common/host.js";
import { dependenciesOutsideRepository, dependencyPath } from "../../compiler/agent/dependency-paths.js";
import { tempDir, writeFiles } from "../helpers/temp-tree.js";

const TOOLCHAIN = "@assemblyline-agents/assembly-line";

/** An agent without plugins in `<parent>/agent`, with `packageJson` as its package.json. */
function agentIn(parent: string, packageJson: unknown): string {
  const root = path.join(parent, "agent");
  writeFiles(root, { "agent.md": "---\nname: a\n---\nHi.\n", "package.json": `${JSON.stringify(packageJson, null, 2)}\n` });
  return root;
}

describe("dependencies by a path outside the repository (AL6214)", () => {
  it("compile and --check warn at the toolchain's devDependency that leaves the agent's folder, and write the lock", async () => {
    const parent = tempDir();
    const root = agentIn(parent, { private: true, devDependencies: { [TOOLCHAIN]: "file:../assembly-line", "left-pad": "^1.0.0" } });
    const result = await compileAgent({ root, package: false, displayRoot: "." });
    expect(result.ok).toBe(true);
    const outside = result.diagnostics.filter((d) => d.code === "AL6214");
    expect(outside).toEqual([
      expect.objectContaining({
        severity: "warning",
        file: "package.json",
        line: 4,
        column: 5,
        path: 'devDependencies["@assemblyline-agents/assembly-line"]',
        message: `package.json depends on '${TOOLCHAIN}' by the path 'file:../assembly-line', which is outside the agent's folder (no Git repository holds it): \`npm ci\` on CI or in another clone cannot find it there.`,
      }),
    ]);
    expect(fs.existsSync(path.join(root, "plugins.lock"))).toBe(true);
    const check = await compileAgent({ root, check: true, displayRoot: "." });
    expect(check.ok).toBe(true);
    expect(check.diagnostics.map((d) => d.code)).toEqual(["AL6214"]);
  });

  it("names the repository when a Git work tree holds the agent, and says nothing of a path inside it", () => {
    const host = createNodeHost();
    const repo = tempDir();
    fs.mkdirSync(path.join(repo, ".git"));
    const root = agentIn(repo, {
      dependencies: { inside: "file:../packages/inside", vendored: "file:vendor/v-1.0.0.tgz", bare: "../packages/bare" },
      devDependencies: { [TOOLCHAIN]: "link:../../assembly-line" },
      optionalDependencies: { registry: "1.2.3", git: "github:acme/x", url: "https://example.org/x.tgz" },
    });
    const found = dependenciesOutsideRepository(host, root);
    expect(found.map((d) => [d.path, d.message.split(":")[0]])).toEqual([
      [`devDependencies["${TOOLCHAIN}"]`, `package.json depends on '${TOOLCHAIN}' by the path 'link`],
    ]);
    expect(found[0]!.message).toContain("which is outside the repository (..)");
    // A link inside the repository to a folder outside it leaves it (real paths are compared).
    const elsewhere = tempDir();
    fs.mkdirSync(path.join(repo, "packages"));
    fs.symlinkSync(elsewhere, path.join(repo, "packages", "inside"));
    expect(dependenciesOutsideRepository(host, root).map((d) => d.path)).toEqual(['dependencies.inside', `devDependencies["${TOOLCHAIN}"]`]);
  });

  it("reads nothing it cannot: no package.json, or one that is not JSON, is no finding", () => {
    const host = createNodeHost();
    const root = tempDir();
    expect(dependenciesOutsideRepository(host, root)).toEqual([]);
    fs.writeFileSync(path.join(root, "package.json"), '{ "devDependencies": { "x": "file:../x" ');
    expect(dependenciesOutsideRepository(host, root)).toEqual([]);
  });

  it("knows which specs name a path", () => {
    expect(dependencyPath("file:../x", "/a/b")).toBe("/a/x");
    expect(dependencyPath("file:///opt/x.tgz", "/a/b")).toBe("/opt/x.tgz");
    expect(dependencyPath("portal:./p", "/a/b")).toBe("/a/b/p");
    expect(dependencyPath("./vendor/x.tgz", "/a/b")).toBe("/a/b/vendor/x.tgz");
    for (const spec of ["^1.0.0", "latest", "npm:other@1", "github:a/b", "git+https://x/y.git", "https://x/y.tgz", "file:", "workspace:*"]) {
      expect(dependencyPath(spec, "/a/b"), spec).toBeUndefined();
    }
  });
});
