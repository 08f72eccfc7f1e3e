/**
 * The authoring API is bundled from `runtime-min/authoring/index.ts` when the toolchain runs
 * from source and from tsc's `index.js` when it runs from `dist/`; both must give the same
 * bundle bytes, or a lock written by one would be stale for the other.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import ts from "typescript";
import { expect, test } from "vitest";
import { locateAuthoringCore } from "../../packaging/authoring-core.js";
import { buildOptions, createCorePathRewriter, planBundles } from "../../packaging/index.js";
import * as esbuild from "esbuild";
import { tempDir } from "../helpers/temp-tree.js";
import { copyFixture, tool } from "./helpers.js";

test("from source, the authoring API is the .ts module next to packaging/", () => {
  const core = locateAuthoringCore();
  expect(core.loader).toBe("ts");
  expect(core.file).toBe(path.resolve(import.meta.dirname, "../../runtime-min/authoring/index.ts"));
});

test("bundling tsc's compiled authoring API gives the same bytes as bundling its source", async () => {
  const source = locateAuthoringCore();
  const compiledFile = path.join(tempDir(), "index.js");
  const sourceText = fs.readFileSync(source.file, "utf8");
  // The options of tsconfig.build.json that shape the emitted JavaScript.
  const compiled = ts.transpileModule(sourceText, { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext } });
  fs.writeFileSync(compiledFile, compiled.outputText);

  const root = copyFixture("assets-agent");
  const uses = path.join(root, "plugins/assets/ai.assemblyline/uses-everything.ts");
  fs.writeFileSync(
    uses,
    'import * as core from "@assemblyline-agents/core";\nexport const api = [core.defineTool, core.approvalRequired, core.RecoverableToolError, core.defineAssemblyLinePlugin];\n',
  );
  const plan = planBundles([tool(root, "assets", "all", "ai.assemblyline/uses-everything.ts")]);
  const outdir = path.join(root, "out");
  const fromSource = await esbuild.build(buildOptions(root, outdir, plan.bundles, source));
  const fromDist = await esbuild.build(buildOptions(root, outdir, plan.bundles, { file: compiledFile, loader: "js" }));
  const text = (bytes: Uint8Array): string => Buffer.from(bytes).toString("utf8");
  const a = text(createCorePathRewriter(root, source)(fromSource.outputFiles[0]!.contents));
  const b = text(createCorePathRewriter(root, { file: compiledFile, loader: "js" })(fromDist.outputFiles[0]!.contents));
  expect(a).toContain("class extends Error");
  expect(a).toContain("// assemblyline-core:@assemblyline-agents/core\n");
  expect(b).toBe(a);
});
