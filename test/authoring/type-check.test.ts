/**
 * Issue 2: the authoring API `@assemblyline-agents/core` (implemented in runtime-min/authoring)
 * resolves for type-checking in `examples/` and `test/fixtures/`. Runs the real TypeScript
 * compiler (6.0, the version ts-morph embeds) on both projects.
 */
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/temp-tree.js";

const tsc = path.join(repoRoot, "node_modules", "typescript", "bin", "tsc");

describe("the authoring API type-checks where plugin code lives", () => {
  for (const project of ["examples/support-agent/tsconfig.json", "test/fixtures/tsconfig.json"]) {
    it(`tsc -p ${project}`, () => {
      const run = spawnSync(process.execPath, [tsc, "-p", path.join(repoRoot, project)], { encoding: "utf8" });
      expect(run.stdout + run.stderr).toBe("");
      expect(run.status).toBe(0);
    });
  }
});
