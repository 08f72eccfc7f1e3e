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
interface FitModule {
  fitGrowth(points: { n: number; y: number }[], y0: number): Fit;
  leastSquares(xs: number[], ys: number[]): { slope: number; intercept: number; r2: number };
}

// bench/ is plain ESM JavaScript without declarations; the test names the types it uses.
const { fitGrowth, leastSquares } = (await import(pathToFileURL(path.resolve(import.meta.dirname, "../../bench/fit.mjs")).href)) as FitModule;
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
});
