/**
 * The diagnostic coverage check (issue 8: "every diagnostic code in the catalog has at least one
 * test that produces it … a test that fails on an unproduced code"): `createDiagnostic`
 * records what it produces when `AL_RECORD_DIAGNOSTICS` is set, in this process and in spawned
 * ones, and a whole-suite vitest run whose tests leave a catalog code unproduced exits 1.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { expect, it } from "vitest";
import { allDiagnosticMessages } from "../../diagnostics/catalog/index.js";
import { pickExample, readRecordedCodes, unproducedCodes } from "../setup/diagnostic-coverage.js";
import { repoRoot, tempDir } from "../helpers/temp-tree.js";

it("records each produced code once per process, with its first message, only when asked", () => {
  const dir = tempDir();
  const script = [
    `const { createDiagnostic } = await import(${JSON.stringify(pathToFileURL(path.join(repoRoot, "dist/diagnostics/diagnostic.js")).href)});`,
    `const { Diagnostics } = await import(${JSON.stringify(pathToFileURL(path.join(repoRoot, "dist/diagnostics/catalog/index.js")).href)});`,
    "const at = { file: 'agent.md', line: 1, column: 1 };",
    "createDiagnostic(Diagnostics.CapabilityPackageNotInstalled, at, ['@acme/a', 'a']);",
    "createDiagnostic(Diagnostics.CapabilityPackageNotInstalled, at, ['@acme/b', 'b']);",
    "createDiagnostic(Diagnostics.FactoryUnverifiable, at, ['create', './x.ts']);",
  ].join("\n");
  const run = (env: NodeJS.ProcessEnv) => spawnSync(process.execPath, ["--input-type=module", "-e", script], { env: { ...process.env, ...env }, encoding: "utf8" });

  expect(run({ AL_RECORD_DIAGNOSTICS: "" }).status).toBe(0);
  expect(fs.readdirSync(dir)).toEqual([]);
  const recorded = run({ AL_RECORD_DIAGNOSTICS: dir });
  expect(recorded.stderr).toBe("");
  expect(fs.readdirSync(dir)).toHaveLength(1);
  const codes = readRecordedCodes(dir);
  expect([...codes.keys()].sort()).toEqual(["AL1013", "AL4010"]);
  expect(codes.get("AL1013")).toEqual(new Set(["Package '@acme/a' of capability 'a' is not installed."]));
  const missing = unproducedCodes(codes);
  expect(missing).toHaveLength(allDiagnosticMessages().length - 2);
  expect(missing).not.toContain("AL1013");
});

it("picks the shortest recorded message as the example, with temporary paths shortened", () => {
  const tmp = fs.realpathSync(tempDir());
  expect(pickExample([`There is no agent.md in '${tmp}/agent'.`, "There is no agent.md in 'a-much-longer-name'."])).toBe("There is no agent.md in '<tmp>/agent'.");
  expect(pickExample(["b: x", "a: x"])).toBe("a: x");
});

it("fails a whole-suite run (exit 1) that leaves catalog codes unproduced, naming them", () => {
  // A suite of one test file that produces no diagnostic at all, checked by the real global setup.
  const config = path.join(tempDir(), "vitest.config.mjs");
  fs.writeFileSync(
    config,
    `export default { test: { root: ${JSON.stringify(repoRoot)}, include: ["test/diagnostics/terminal-color.test.ts"], pool: "forks", globalSetup: ["test/setup/diagnostic-coverage.ts"] } };\n`,
  );
  const vitest = path.join(repoRoot, "node_modules", "vitest", "vitest.mjs");
  const whole = spawnSync(process.execPath, [vitest, "run", "--config", config], { cwd: repoRoot, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  expect(whole.status).toBe(1);
  expect(whole.stderr).toContain("FAIL diagnostic coverage:");
  expect(whole.stderr).toContain("AL1013");

  // The same suite filtered by test name is not the whole suite: it records but does not fail.
  const filtered = spawnSync(process.execPath, [vitest, "run", "--config", config, "-t", "colour"], { cwd: repoRoot, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  expect(filtered.stderr).not.toContain("FAIL diagnostic coverage:");
  expect(filtered.status).toBe(0);
});
