/**
 * The toolchain's identity (`cli/inputs-record.ts` `toolchainIdentity`) as the built CLI computes
 * it: the compile path runs from the CLI bundle, `dist/cli-bundle/` (scripts/build-cli-bundle.mjs),
 * on both threads, started from stubs among the layers `tsc` emitted (which also run on their own
 * after a `tsc` without the bundle's build), so a change to either must make the inputs record
 * and the compile record stop holding (issue 14 items 3 and 4); while every stub is the
 * bundle's, the other modules `tsc` emitted do not run and are not part of it, nor of the
 * analysis cache's key (`toolchainKey`, compiler/static-analysis/analysis-cache.ts). Runs the real CLI
 * from a copy of `dist/` (built by `pretest`) so that files can be touched without disturbing
 * other tests.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { COMPILE_RECORD_FILE, COMPILE_RECORD_MAGIC } from "../../cli/compile-record.js";
import { INPUTS_RECORD_FILE } from "../../cli/inputs-record.js";
import { readSealedLog } from "../../common/sealed-file.js";
import { ANALYSIS_CACHE_FILE, readAnalysisCacheState } from "../../compiler/static-analysis/analysis-cache.js";
import { copyAgent } from "../helpers/copy-agent.js";
import { repoRoot, tempDir } from "../helpers/temp-tree.js";

let pkg: string;
let agent: string;

/**
 * The toolchain each record names after one `compile` by the copied CLI, and the analysis
 * cache's (`toolchainKey` in compiler/static-analysis/analysis-cache.ts). `analyse`: the compile
 * record is removed first, so that the compile runs its front end and reads the analysis cache
 * under the key it computes (a compile whose record holds replays and never reads it).
 */
function compileAndReadToolchains({ analyse = false } = {}): { compile: unknown; inputs: unknown; analysis: unknown } {
  if (analyse) fs.rmSync(path.join(agent, COMPILE_RECORD_FILE), { force: true });
  const run = spawnSync(process.execPath, [path.join(pkg, "dist", "bin", "assembly-line.cjs"), "compile", agent, "--no-package"], {
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
  });
  expect(run.status, run.stderr).toBe(0);
  const compile = readSealedLog(path.join(agent, COMPILE_RECORD_FILE), COMPILE_RECORD_MAGIC)?.segments[0] as { toolchain?: unknown } | undefined;
  const inputs = JSON.parse(fs.readFileSync(path.join(agent, INPUTS_RECORD_FILE), "utf8")) as { toolchain?: unknown };
  expect(typeof compile?.toolchain).toBe("string");
  expect(typeof inputs.toolchain).toBe("string");
  const analysis = readAnalysisCacheState(path.join(agent, ANALYSIS_CACHE_FILE))?.toolchain;
  expect(typeof analysis).toBe("string");
  return { compile: compile!.toolchain, inputs: inputs.toolchain, analysis };
}

/** Moves a file's mtime forward, as a rebuild that writes it does. */
function touch(file: string): void {
  const later = new Date(fs.statSync(file).mtimeMs + 5_000);
  fs.utimesSync(file, later, later);
}

beforeAll(() => {
  pkg = tempDir("al-toolchain-");
  fs.cpSync(path.join(repoRoot, "dist"), path.join(pkg, "dist"), { recursive: true });
  fs.copyFileSync(path.join(repoRoot, "package.json"), path.join(pkg, "package.json"));
  for (const name of ["node_modules", "schemas"]) fs.symlinkSync(path.join(repoRoot, name), path.join(pkg, name));
  agent = copyAgent(path.join(repoRoot, "examples", "support-agent"));
}, 60_000);

describe("the toolchain identity of the built CLI", () => {
  it("holds between compiles by the same build", () => {
    expect(compileAndReadToolchains()).toEqual(compileAndReadToolchains());
  }, 60_000);

  it("changes when the CLI bundle changes (the compile path both threads run)", () => {
    const before = compileAndReadToolchains();
    touch(path.join(pkg, "dist", "cli-bundle", "assembly-line.cjs"));
    const after = compileAndReadToolchains();
    expect(after.compile).not.toBe(before.compile);
    expect(after.inputs).not.toBe(before.inputs);
    // The compile ran (its record no longer held), under another analysis cache key.
    expect(after.analysis).not.toBe(before.analysis);
  }, 60_000);

  it("changes when a stub that starts the bundle changes (a worker thread's script)", () => {
    const before = compileAndReadToolchains();
    touch(path.join(pkg, "dist", "compiler", "analysis-worker-thread.js"));
    const after = compileAndReadToolchains();
    expect(after.compile).not.toBe(before.compile);
    expect(after.inputs).not.toBe(before.inputs);
  }, 60_000);

  it("does not list the modules tsc emitted that the bundle does not run, while every stub is the bundle's", () => {
    // Nor does the analysis cache's key (helper-98): a compile that analyses reads the cache
    // under the same key (its `compiler/` files listed and stat'ed by every such compile before).
    const before = compileAndReadToolchains({ analyse: true });
    touch(path.join(pkg, "dist", "compiler", "preanalyze-plugin.js"));
    expect(compileAndReadToolchains({ analyse: true })).toEqual(before);
  }, 60_000);

  it("changes with any module of the layers once a tsc run alone wrote a stub back (those modules then run)", () => {
    const stub = path.join(pkg, "dist", "compiler", "validation", "schema-worker-thread.js");
    const bundled = fs.readFileSync(stub, "utf8");
    try {
      // What `tsc` alone writes: the unbundled module, which imports the layers' own files.
      fs.writeFileSync(stub, "// The schema worker's script as tsc emits it.\nexport {};\n");
      const before = compileAndReadToolchains({ analyse: true });
      touch(path.join(pkg, "dist", "compiler", "preanalyze-plugin.js"));
      const after = compileAndReadToolchains({ analyse: true });
      expect(after.compile).not.toBe(before.compile);
      expect(after.inputs).not.toBe(before.inputs);
      expect(after.analysis).not.toBe(before.analysis);
    } finally {
      fs.writeFileSync(stub, bundled);
    }
  }, 60_000);
});
