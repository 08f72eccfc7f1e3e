/**
 * bench/fit.mjs: the growth fit behind "whether compile is linear" (issue 14 item 5). Known
 * curves in, known exponents and verdicts out.
 */
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

interface Fit {
  exponent: number | null;
  r2: number | null;
  localExponent: number | null;
  verdict: string;
  fixedCost: number;
  linear: { slopePer1000: number; intercept: number; r2: number };
}
interface Summary {
  median: number;
  cpuMedian: number | null;
  rssPeakKb: number | null;
}
interface FitModule {
  scaleFits(rows: { tools: number; floor: Summary; noPackage: Summary; compile: Summary }[], fixed: Record<string, Summary>): ({ name: string; value: number | null } & Fit)[];
  scaleFitsFromFigures(figures: Record<string, unknown>[]): ({ name: string; value: number | null; fittedFrom?: string } & Fit)[];
  fitGrowth(points: { n: number; y: number }[], y0: number): Fit;
  leastSquares(xs: number[], ys: number[]): { slope: number; intercept: number; r2: number };
}

// bench/ is plain ESM JavaScript without declarations; the test names the types it uses.
const { fitGrowth, leastSquares, scaleFits, scaleFitsFromFigures } = (await import(pathToFileURL(path.resolve(import.meta.dirname, "../../bench/fit.mjs")).href)) as FitModule;
const SIZES = [100, 1000, 5000, 20000];

describe("bench/fit.mjs", () => {
  it("fits a straight line exactly", () => {
    const line = leastSquares([1, 2, 3, 4], [3, 5, 7, 9]);
    expect(line.slope).toBeCloseTo(2, 10);
    expect(line.intercept).toBeCloseTo(1, 10);
    expect(line.r2).toBeCloseTo(1, 10);
  });

  it("calls a fixed cost plus a linear part linear, with k = 1 after the fixed cost is subtracted", () => {
    const fit = fitGrowth(SIZES.map((n) => ({ n, y: 400 + 0.5 * n })), 400);
    expect(fit.exponent).toBeCloseTo(1, 3);
    expect(fit.localExponent).toBeCloseTo(1, 3);
    expect(fit.r2).toBeCloseTo(1, 3);
    expect(fit.verdict).toBe("linear");
    expect(fit.linear.slopePer1000).toBeCloseTo(500, 1);
    expect(fit.linear.intercept).toBeCloseTo(400, 1);
  });

  it("calls n^1.3 superlinear although a straight line fits it with R² > 0.99", () => {
    const fit = fitGrowth(SIZES.map((n) => ({ n, y: 300 + 0.02 * n ** 1.3 })), 300);
    expect(fit.exponent).toBeCloseTo(1.3, 3);
    expect(fit.verdict).toBe("superlinear");
    expect(fit.linear.r2).toBeGreaterThan(0.99);
  });

  it("catches a cost that turns superlinear only between the two largest sizes", () => {
    const points = [
      { n: 100, y: 100 },
      { n: 1000, y: 1000 },
      { n: 5000, y: 5000 },
      { n: 20000, y: 5000 * 4 ** 1.5 },
    ];
    const fit = fitGrowth(points, 0);
    expect(fit.localExponent).toBeCloseTo(1.5, 3);
    expect(fit.verdict).toBe("superlinear");
  });

  it("calls a square root sublinear", () => {
    expect(fitGrowth(SIZES.map((n) => ({ n, y: 10 + Math.sqrt(n) })), 10).verdict).toBe("sublinear");
  });

  it("says undetermined when fewer than two sizes rise above the fixed cost", () => {
    const fit = fitGrowth([{ n: 10, y: 90 }, { n: 20, y: 120 }], 100);
    expect(fit.exponent).toBeNull();
    expect(fit.verdict).toBe("undetermined");
  });

  it("fits a size scan's time, CPU and memory, and refits the same from the figures a stopped scan left", () => {
    const at = (tools: number, base: number) => ({ median: base + tools, cpuMedian: base / 2 + tools / 2, rssPeakKb: 1000 * base + 10 * tools });
    const rows = [100, 1000, 5000].map((tools) => ({ tools, floor: at(tools / 4, 100), noPackage: at(tools, 300), compile: at(tools * 2, 400) }));
    const fixed = { floor: at(0, 100), noPackage: at(0, 300), compile: at(0, 400) };
    const fits = scaleFits(rows, fixed);
    expect(fits.map((f) => f.name)).toEqual([
      "scale.fit.compile-no-package.time",
      "scale.fit.compile-no-package.cpu",
      "scale.fit.compile-no-package.memory",
      "scale.fit.compile.time",
      "scale.fit.compile.cpu",
      "scale.fit.compile.memory",
      "scale.fit.floor.time",
    ]);
    for (const fit of fits) expect({ name: fit.name, verdict: fit.verdict, k: fit.value }).toEqual({ name: fit.name, verdict: "linear", k: 1 });
    const figures: Record<string, unknown>[] = [{ name: "scale.fixed-cost", ...fixed.compile, noPackage: fixed.noPackage, floor: fixed.floor }];
    for (const r of rows) {
      const plugins = r.tools / 10;
      figures.push({ name: `scale.${plugins}x10.compile-no-package`, plugins, tools: r.tools, ...r.noPackage, baseline: r.floor });
      figures.push({ name: `scale.${plugins}x10.compile`, plugins, tools: r.tools, ...r.compile, baseline: r.floor });
    }
    const refitted = scaleFitsFromFigures(figures);
    expect(refitted.map(({ fittedFrom, ...rest }) => (expect(fittedFrom).toBe("figures"), rest))).toEqual(fits);
    expect(scaleFitsFromFigures(figures.slice(1))).toEqual([]);
  });
});
