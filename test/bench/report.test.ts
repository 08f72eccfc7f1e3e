/**
 * bench/report.mjs: the issue-14 targets next to what the run measured (or "not measured"),
 * and bench/RESULTS.md rendered from a results object.
 */
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

interface ReportModule {
  ISSUE_14_TARGETS: { name: string; script: string; target: { op: string; value: number } }[];
  issueTargetRows(results: unknown): { name: string; value: number | null; verdict: string }[];
  formatIssueTargets(results: unknown): string;
  renderResultsMarkdown(results: unknown): string;
}

// bench/ is plain ESM JavaScript without declarations; the test names the types it uses.
const report = (await import(pathToFileURL(path.resolve(import.meta.dirname, "../../bench/report.mjs")).href)) as ReportModule;

const summary = (median: number) => ({ median, min: median - 1, max: median + 1, n: 3 });
const results = {
  startedAt: "2026-01-01T00:00:00.000Z",
  durationMs: 600_000,
  quick: false,
  machine: { cpu: "Test CPU", cores: 2, memoryGiB: 8, os: "Linux", node: "v20.0.0", loadAverage: [0.1, 0.2, 0.3] },
  loadAverageAtStart: [0.1, 0.2, 0.3],
  loadAverageAtEnd: [0.4, 0.5, 0.6],
  scripts: [{ script: "compile.mjs", status: 0, durationMs: 1000 }],
  skipped: ["startup.mjs"],
  figures: [
    { script: "compile.mjs", name: "compile.cold", label: "cold", unit: "×", value: 2.5, ratio: 2.5, target: { op: "<=", value: 2 }, meets: false, ...summary(250), cpuMedian: 300, baseline: { label: "floor", ...summary(100), cpuMedian: 100 } },
    { script: "runtime.mjs", name: "runtime.echo", label: "echo", unit: "×", value: 0.9, ratio: 0.9, target: { op: "<=", value: 1 }, meets: true, ...summary(0.9), baseline: { label: "mcp", ...summary(1) } },
    { script: "scale.mjs", name: "scale.fixed-cost", label: "fixed", unit: "ms", value: 500, ...summary(500), noPackage: summary(400), floor: summary(300) },
    { script: "scale.mjs", name: "scale.10x10.compile", label: "c", unit: "×", value: 2, ratio: 2, plugins: 10, tools: 100, files: 251, ...summary(1000), cpuMedian: 900, rssPeakKb: 204800, baseline: { label: "floor", ...summary(500), cpuMedian: 450 } },
    { script: "scale.mjs", name: "scale.10x10.compile-no-package", label: "n", unit: "×", value: 1.5, ratio: 1.5, plugins: 10, tools: 100, files: 251, ...summary(750), rssPeakKb: 102400, baseline: { label: "floor", ...summary(500) } },
    { script: "scale.mjs", name: "scale.fit.compile.time", label: "fit", unit: "exponent", value: 1.02, r2: 0.999, localExponent: 1.05, verdict: "linear", per: "ms per 1000 tools", linear: { slopePer1000: 40, intercept: 500, r2: 0.999 }, fixedCost: 500 },
  ],
};

describe("bench/report.mjs", () => {
  it("puts every issue-14 target next to its figure, or says which script did not report it", () => {
    const rows = report.issueTargetRows(results);
    expect(rows.map((r) => r.name)).toEqual(report.ISSUE_14_TARGETS.map((t) => t.name));
    expect(rows.find((r) => r.name === "compile.cold")).toMatchObject({ value: 2.5, verdict: "misses" });
    expect(rows.find((r) => r.name === "runtime.echo")).toMatchObject({ value: 0.9, verdict: "meets" });
    expect(rows.find((r) => r.name === "startup.version")).toMatchObject({ value: null, verdict: "not measured (no figure startup.version from bench/startup.mjs)" });
    const text = report.formatIssueTargets(results);
    expect(text).not.toContain("QUICK RUN");
    expect(text).toMatch(/cold compile --no-package \(200 × 10\) \/ the parse floor\s+2\.50×\s+target ≤ 2×\s+misses/);
    expect(text).toMatch(/compile with packaging, one file changed \/ cold compile\s+—\s+target ≤ 0\.3×\s+not measured/);
  });

  // New-user trial 135, C3: a quick run's summary named the 200 × 10 agent it did not compile and
  // gave verdicts on single runs with nothing saying so.
  it("in a quick run, names the size the figure measured and says the verdicts are no measurement", () => {
    const quick = { ...results, quick: true, figures: results.figures.map((f) => (f.name === "compile.cold" ? { ...f, label: "compile --no-package, cold, 2 × 10 (whole process)", n: 1 } : f)) };
    const text = report.formatIssueTargets(quick);
    expect(text.split("\n")[0]).toMatch(/^QUICK RUN: /);
    expect(text).toMatch(/cold compile --no-package \(2 × 10\) \/ the parse floor\s+2\.50×\s+target ≤ 2×\s+misses \(quick: n = 1, not a measurement\)/);
    expect(text).not.toContain("200 × 10");
  });

  it("renders RESULTS.md: the machine, the targets, the size scan, the fit and every figure", () => {
    const markdown = report.renderResultsMarkdown(results);
    expect(markdown).toContain("- CPU: Test CPU, 2 cores; memory 8 GiB");
    expect(markdown).not.toContain("Toolchain measured");
    expect(report.renderResultsMarkdown({ ...results, commit: "f621777-dirty" })).toContain("- Toolchain measured: commit f621777-dirty");
    expect(markdown).toContain("at the start: 0.1, 0.2, 0.3; at the end: 0.4, 0.5, 0.6");
    expect(markdown).toContain("| cold compile --no-package (200 × 10) / the parse floor (`compile.cold`) | 2.50× | 3.00× | ≤ 2× | misses |");
    expect(markdown).toContain("| echo round trip / MCP SDK over stdio (`runtime.echo`) | 0.90× | — | ≤ 1× | meets |");
    expect(markdown).toContain("| 10 × 10 | 251 | 3 | 500 (499–501) | 450 | 750 (749–751) | — | 1.50× (—) | 100 | 1000 (999–1001) | 900 | 2.00× (2.00×) | 200 |");
    expect(markdown).toContain("| compile | wall time | 1.020 | 0.999 | 1.050 | 40 ms | 0.999 | linear |");
    expect(markdown).toContain("| `runtime.echo` | echo | 0.90× | — |");
    expect(markdown).toContain("| bench/compile.mjs | 1.0 | 0 |");
    expect(markdown).not.toContain("--quick");
  });
});
