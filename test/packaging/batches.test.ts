/**
 * Packaging in batches (`packaging/bundle-tools.ts` `BUILD_BATCH`: esbuild's work per build
 * grows with entries × files, and one esbuild build of 20,000 definitions held 6.4 GB of its
 * memory, once 23 GB, docs/benchmarks.md): more
 * definitions than a batch are built in several esbuild builds, one after the other, with the
 * same bytes, integrities and diagnostics as one build; the watch bundler keeps one context per
 * batch and frees the others; and esbuild's service starts with a memory limit
 * (`packaging/esbuild-service.ts`) that nothing else in the process sees.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import * as esbuild from "esbuild";
import { afterAll, describe, expect, it } from "vitest";
import { bundleTools, type BuildFunction, type PackagingResult, type PackagingTool } from "../../packaging/index.js";
import { BUILD_BATCH } from "../../packaging/bundle-tools.js";
import { ESBUILD_MEMORY_LIMIT } from "../../packaging/esbuild-service.js";
import { createIncrementalBundler } from "../../packaging/incremental-bundler.js";
import { repoRoot, writeTree } from "../helpers/temp-tree.js";
import { tool } from "./helpers.js";

/**
 * An agent of `count` definitions that all import one helper module with an esbuild warning
 * (a comparison with -0), and, with `missing`, definitions 1 and 3 importing a file that does
 * not exist.
 */
function agent(count: number, missing = false): { root: string; tools: PackagingTool[] } {
  const files: Record<string, string> = {
    "plugins/many/ai.assemblyline/lib.ts": "export const isNegativeZero = (x: number): boolean => x === -0;\n",
  };
  for (let i = 0; i < count; i++) {
    const broken = missing && (i === 1 || i === 3) ? 'import "./gone.js";\n' : "";
    files[`plugins/many/ai.assemblyline/tool-${i}.ts`] = `${broken}import { isNegativeZero } from "./lib.js";\nexport default { async execute() { return { tool: ${i}, zero: isNegativeZero(0) }; } };\n`;
  }
  const root = writeTree(files);
  return { root, tools: Array.from({ length: count }, (_, i) => tool(root, "many", `tool_${i}`, `ai.assemblyline/tool-${i}.ts`)) };
}

/** A result as comparable plain data. */
function plain(result: PackagingResult<Uint8Array>): unknown {
  return {
    bundles: [...result.bundles].map(([file, bytes]) => [file, Buffer.from(bytes).toString("base64")]),
    toolBundles: [...result.toolBundles],
    diagnostics: result.diagnostics,
  };
}

/** esbuild's build, recording the entry points and the batch of every call. */
function countingBuild(): { build: BuildFunction; calls: { entries: string[]; batch: unknown }[] } {
  const calls: { entries: string[]; batch: unknown }[] = [];
  const build: BuildFunction = async (options, batch) => {
    calls.push({ entries: Object.keys(options.entryPoints as Record<string, string>), batch });
    return esbuild.build(options);
  };
  return { build, calls };
}

describe("packaging in batches", () => {
  it("builds at most BUILD_BATCH definitions per esbuild build: a few hundred (esbuild's work per build grows with entries × files)", () => {
    expect(BUILD_BATCH).toBeGreaterThanOrEqual(100);
    expect(BUILD_BATCH).toBeLessThanOrEqual(500);
  });

  it("gives the bytes, integrities and diagnostics of one build, a shared module's warning said once", async () => {
    const { root, tools } = agent(5);
    const one = await bundleTools({ root, tools });
    expect(one.bundles.size).toBe(5);
    expect(one.diagnostics.map((d) => d.code)).toEqual(["AL7005"]);
    const { build, calls } = countingBuild();
    const batched = await bundleTools({ root, tools }, { build, batchSize: 2 });
    expect(plain(batched)).toEqual(plain(one));
    // Three builds of disjoint entry points, told which batch they are.
    expect(calls.map((call) => call.batch)).toEqual([{ index: 0, count: 3 }, { index: 1, count: 3 }, { index: 2, count: 3 }]);
    expect(calls.map((call) => call.entries.length)).toEqual([2, 2, 1]);
    expect(new Set(calls.flatMap((call) => call.entries)).size).toBe(5);
  });

  it("reports the errors of every batch, as one build does, and builds no bundle", async () => {
    const { root, tools } = agent(5, true);
    const one = await bundleTools({ root, tools });
    expect(one.diagnostics.filter((d) => d.severity === "error")).toHaveLength(2);
    expect(one.bundles.size).toBe(0);
    const batched = await bundleTools({ root, tools }, { batchSize: 1 });
    expect(plain(batched)).toEqual(plain(one));
  });
});

describe("the watch bundler with batches", () => {
  const bundler = createIncrementalBundler();
  afterAll(() => bundler.dispose());

  it("keeps one context per batch, and frees a batch's context once a compile no longer builds it", async () => {
    const { root, tools } = agent(3);
    const oneOff = await bundleTools({ root, tools });
    const first = await bundleTools({ root, tools }, { build: bundler.build, batchSize: 1 });
    expect(plain(first)).toEqual(plain(oneOff));
    expect(bundler.contexts()).toBe(3);
    // The same batches again: every context is reused, and sees an edit.
    const edited = path.join(root, "plugins/many/ai.assemblyline/tool-2.ts");
    fs.writeFileSync(edited, fs.readFileSync(edited, "utf8").replace("tool: 2", "tool: 22"));
    const second = await bundleTools({ root, tools }, { build: bundler.build, batchSize: 1 });
    expect(bundler.contexts()).toBe(3);
    expect(Buffer.from(second.bundles.get("bundles/root/many/ai.assemblyline/tool-2.mjs")!).toString("utf8")).toContain("tool: 22");
    expect(plain(second)).toEqual(plain(await bundleTools({ root, tools })));
    // Without the last tool its batch is not built, and its context is freed after that
    // compile: bringing the tool back needs a new one (a kept context would be reused).
    await bundleTools({ root, tools: tools.slice(0, 2) }, { build: bundler.build, batchSize: 1 });
    expect(bundler.contexts()).toBe(3);
    await bundleTools({ root, tools }, { build: bundler.build, batchSize: 1 });
    expect(bundler.contexts()).toBe(4);
  });
});

describe("the esbuild service's memory limit", () => {
  /**
   * Packages a one-tool agent in a fresh Node process (so that packaging starts esbuild's
   * service) and prints the service's GOMEMLIMIT (from /proc) and the process's own afterwards.
   */
  function serviceLimit(env: NodeJS.ProcessEnv): { service: string | null; own: string | null } {
    const { root, tools } = agent(1);
    const script = [
      `const { bundleTools } = await import(${JSON.stringify(pathToFileURL(path.join(repoRoot, "dist", "packaging", "index.js")).href)});`,
      `const fs = await import("node:fs");`,
      `const result = await bundleTools(${JSON.stringify({ root, tools })});`,
      `if (result.bundles.size !== 1) throw new Error(JSON.stringify(result.diagnostics));`,
      // esbuild's service is this process's child.
      `const children = fs.readFileSync("/proc/self/task/" + process.pid + "/children", "utf8").trim().split(/\\s+/).filter(Boolean);`,
      `const service = children.find((pid) => fs.readFileSync("/proc/" + pid + "/cmdline", "utf8").includes("--service="));`,
      `const vars = fs.readFileSync("/proc/" + service + "/environ", "utf8").split("\\0");`,
      `const limit = vars.find((line) => line.startsWith("GOMEMLIMIT="));`,
      `process.stdout.write(JSON.stringify({ service: limit ? limit.slice(11) : null, own: process.env.GOMEMLIMIT ?? null }));`,
      `process.exit(0);`,
    ].join("\n");
    const environment = { ...process.env, ...env };
    if (env["GOMEMLIMIT"] === undefined) delete environment["GOMEMLIMIT"];
    const result = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", env: environment });
    expect(result.status, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as { service: string | null; own: string | null };
  }

  it.runIf(process.platform === "linux")("is given to the service packaging starts, and the process's own environment is left as it was", () => {
    expect(serviceLimit({})).toEqual({ service: ESBUILD_MEMORY_LIMIT, own: null });
  });

  it.runIf(process.platform === "linux")("leaves a GOMEMLIMIT the user set alone", () => {
    expect(serviceLimit({ GOMEMLIMIT: "3GiB" })).toEqual({ service: "3GiB", own: "3GiB" });
  });
});
