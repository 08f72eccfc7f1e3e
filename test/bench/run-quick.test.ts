/**
 * `node bench/run.mjs --quick` (issue 14 item 5): every bench script runs smoke-sized and
 * reports its figures in the shared shape (bench/lib.mjs), run.mjs collects them, and
 * RESULTS.md / results.json are written with the issue-14 targets and the size scan. Checks the
 * shape of the output, never the numbers: no timing assertions.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const REPO = path.resolve(import.meta.dirname, "../..");
const BENCH = path.join(REPO, "bench");

interface Summary {
  median: number;
  min: number;
  max: number;
  n: number;
}
interface Figure extends Partial<Summary> {
  script: string;
  name: string;
  label: string;
  unit: string;
  value: number | null;
  ratio?: number;
  target?: { op: string; value: number };
  meets?: boolean;
  rssPeakKb?: number | null;
  baseline?: Summary & { label: string };
}
interface Results {
  quick: boolean;
  machine: { cpu: string; cores: number; node: string };
  scripts: { script: string; status: number | string; durationMs: number }[];
  skipped: string[];
  figures: Figure[];
}
interface ReportModule {
  ISSUE_14_TARGETS: { name: string; script: string }[];
}

// bench/ is plain ESM JavaScript without declarations; the test names the types it uses.
const { ISSUE_14_TARGETS } = (await import(pathToFileURL(path.join(BENCH, "report.mjs")).href)) as ReportModule;

/** The figures each script of this checkout must report (the issue-14 ones are added below). */
const EXPECTED: Record<string, string[]> = {
  "compile.mjs": ["compile.cold", "compile.cold-cache-write", "compile.warm", "compile.cold.worker-on", "compile.cold.worker-off", "compile.cold.read-ahead-off", "compile.lock-share.cold", "compile.lock-share.warm"],
  "runtime.mjs": ["runtime.echo"],
  "packaging.mjs": ["packaging.bundle"],
  "search.mjs": ["search.tool-search"],
  "providers.mjs": ["providers.families", "providers.all", "providers.phase-share.families", "providers.phase-share.all"],
  "lsp.mjs": ["lsp.typing", "lsp.pauses", "lsp.first.initialize", "lsp.first.diagnostics"],
  "editor.mjs": ["editor.entry", "editor.ordinary", "editor.first"],
  "scale.mjs": [
    "scale.fixed-cost",
    "scale.2x10.compile-no-package",
    "scale.2x10.compile",
    "scale.5x10.compile-no-package",
    "scale.5x10.compile",
    "scale.fit.compile-no-package.time",
    "scale.fit.compile.time",
    "scale.fit.floor.time",
  ],
};

const out = fs.mkdtempSync(path.join(os.tmpdir(), "al-bench-quick-"));
afterAll(() => fs.rmSync(out, { recursive: true, force: true }));

/** Runs `node bench/run.mjs --quick --json --write --out <tmp>`; resolves status and stdout. */
function runQuick(): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(BENCH, "run.mjs"), "--quick", "--json", "--write", "--out", out], { cwd: REPO, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

const isSummary = (x: Partial<Summary> | undefined) => typeof x?.median === "number" && typeof x.min === "number" && typeof x.max === "number" && typeof x.n === "number" && x.n > 0 && x.min <= x.median && x.median <= x.max;

describe("npm run bench --quick", () => {
  it("runs every script, collects figures in the shared shape and writes RESULTS.md and results.json", { timeout: 900_000 }, async () => {
    const run = await runQuick();
    expect(run.stderr.slice(-3000) && run.status).toBe(0);
    const results = JSON.parse(run.stdout) as Results;
    expect(JSON.parse(fs.readFileSync(path.join(out, "results.json"), "utf8"))).toEqual(results);
    expect(results.quick).toBe(true);
    expect(results.machine.cores).toBeGreaterThan(0);
    for (const script of results.scripts) expect({ script: script.script, status: script.status }).toEqual({ script: script.script, status: 0 });

    const present = fs.readdirSync(BENCH);
    const expected = structuredClone(EXPECTED);
    for (const target of ISSUE_14_TARGETS) if (present.includes(target.script)) (expected[target.script] ??= []).push(target.name);
    for (const [script, names] of Object.entries(expected)) {
      const reported = results.figures.filter((f) => f.script === script).map((f) => f.name);
      expect({ script, missing: names.filter((n) => !reported.includes(n)) }).toEqual({ script, missing: [] });
    }

    for (const figure of results.figures) {
      expect(typeof figure.label, figure.name).toBe("string");
      expect(typeof figure.unit, figure.name).toBe("string");
      expect(figure.value === null || Number.isFinite(figure.value), figure.name).toBe(true);
      if (figure.target) expect(typeof figure.meets, figure.name).toBe("boolean");
      if (figure.unit === "×") {
        expect(figure.ratio, figure.name).toBe(figure.value);
        expect(isSummary(figure), figure.name).toBe(true);
        expect(isSummary(figure.baseline), figure.name).toBe(true);
        expect(typeof figure.baseline!.label, figure.name).toBe("string");
      }
      if (figure.rssPeakKb !== undefined) expect(figure.rssPeakKb === null || figure.rssPeakKb > 0, figure.name).toBe(true);
    }
    // The size scan measured whole processes: peak RSS where GNU time exists.
    const scan = results.figures.find((f) => f.name === "scale.5x10.compile")!;
    if (fs.existsSync("/usr/bin/time")) expect(scan.rssPeakKb).toBeGreaterThan(0);

    const markdown = fs.readFileSync(path.join(out, "RESULTS.md"), "utf8");
    expect(markdown).toContain("## Machine");
    expect(markdown).toContain("--quick: smoke-sized");
    for (const target of ISSUE_14_TARGETS) expect(markdown).toContain(`\`${target.name}\``);
    expect(markdown).toMatch(/\| 5 × 10 \| 127 \|/);
    expect(markdown).toContain("### Fit");
  });

  it("refuses to let a quick run replace the recorded results", async () => {
    const child = spawn(process.execPath, [path.join(BENCH, "run.mjs"), "--quick", "--write", "--only", "search"], { cwd: REPO, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const status = await new Promise((resolve) => child.on("close", resolve));
    expect(status).toBe(2);
    expect(stderr).toContain("--quick --write needs --out DIR");
    expect(stderr).toContain("to print a quick run only: node bench/run.mjs --quick");
  });
});
