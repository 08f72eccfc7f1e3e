/**
 * The layer rules (issue 8, `.dependency-cruiser.cjs`): the repository passes them, and the same
 * rules fail — naming the offending import — on an upward import, a sibling import, the runtime
 * importing the front end, and an import cycle.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { writeTree } from "../helpers/temp-tree.js";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const depcruise = path.join(repo, "node_modules", "dependency-cruiser", "bin", "dependency-cruise.mjs");
const LAYERS = ["bin", "cli", "editor", "build", "packaging", "lockfile", "compiler", "runtime-min", "contract", "diagnostics", "common"];

/** Runs dependency-cruiser with the repository's config in `cwd` over the layer folders that exist there. */
function cruise(cwd: string): { status: number | null; output: string } {
  const folders = LAYERS.filter((folder) => fs.existsSync(path.join(cwd, folder)));
  const result = spawnSync(process.execPath, [depcruise, ...folders, "--config", ".dependency-cruiser.cjs", "--output-type", "err"], { cwd, encoding: "utf8" });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/** A miniature tree with the repository's rules, for proving that a violation fails. */
function miniature(files: Record<string, string>): string {
  return writeTree({
    ".dependency-cruiser.cjs": fs.readFileSync(path.join(repo, ".dependency-cruiser.cjs"), "utf8"),
    "tsconfig.json": JSON.stringify({ compilerOptions: { module: "nodenext", moduleResolution: "nodenext", strict: true } }),
    "package.json": JSON.stringify({ type: "module" }),
    ...files,
  });
}

/**
 * One miniature holding one violation of each kind below, cruised once for the file (a
 * dependency-cruiser run costs about 2 s of CPU, most of it its own start). Each test checks
 * that its violation is reported as an error line of its own rule naming its import; the exit
 * status is the number of errors, so it is the count of those lines.
 */
let violations: { status: number | null; output: string } | undefined;
function cruiseViolations(): { status: number | null; output: string } {
  violations ??= cruise(
    miniature({
      // An upward import.
      "common/text.ts": 'import { analyse } from "../compiler/analyse.js";\nexport const text = analyse;\n',
      "compiler/analyse.ts": "export const analyse = 1;\n",
      // The runtime importing the front end.
      "runtime-min/run.ts": 'import { analyse } from "../compiler/analyse.js";\nexport const run = analyse;\n',
      // Siblings of one rank importing each other.
      "lockfile/lock.ts": 'import { bundle } from "../packaging/bundle.js";\nexport const lock = bundle;\n',
      "packaging/bundle.ts": "export const bundle = 1;\n",
      // An import cycle through type-only imports.
      "compiler/a.ts": 'import type { B } from "./b.js";\nexport interface A { b?: B }\n',
      "compiler/b.ts": 'import type { A } from "./a.js";\nexport interface B { a?: A }\n',
    }),
  );
  return violations;
}

/** The error lines dependency-cruiser's `err` output starts a violation with (`error <rule>: <from> → …`). */
const errorLines = (output: string): string[] => output.split("\n").filter((line) => /^\s*error \S+:/.test(line)).map((line) => line.trim());

describe("layers import downward only", () => {
  it("the repository passes every rule", () => {
    const { status, output } = cruise(repo);
    expect(output).toContain("no dependency violations found");
    expect(status).toBe(0);
  });

  it("reports each violation of the miniature as an error, and exits with their number", () => {
    const { status, output } = cruiseViolations();
    expect(errorLines(output)).toHaveLength(4);
    expect(status).toBe(4);
  });

  it("fails on an upward import and names it", () => {
    const { status, output } = cruiseViolations();
    expect(status).not.toBe(0);
    expect(output).toContain("layer-common");
    expect(errorLines(output)).toContain("error layer-common: common/text.ts → compiler/analyse.ts");
  });

  it("fails when the runtime imports the front end", () => {
    const { status, output } = cruiseViolations();
    expect(status).not.toBe(0);
    expect(errorLines(output)).toContain("error layer-runtime-min: runtime-min/run.ts → compiler/analyse.ts");
  });

  it("fails when siblings of one rank import each other", () => {
    const { status, output } = cruiseViolations();
    expect(status).not.toBe(0);
    expect(errorLines(output)).toContain("error layer-lockfile: lockfile/lock.ts → packaging/bundle.ts");
  });

  it("fails on an import cycle, even through type-only imports", () => {
    const { status, output } = cruiseViolations();
    expect(status).not.toBe(0);
    expect(output).toContain("no-circular");
    expect(output).toMatch(/error no-circular: compiler\/(a|b)\.ts → \s*compiler\/(b|a)\.ts →\s*compiler\/\1\.ts/);
  });
});
