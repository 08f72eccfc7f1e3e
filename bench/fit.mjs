/**
 * How a cost grows with the size of the agent (issue 14 item 5: "a fit of time and memory
 * against size that says whether compile is linear").
 *
 * The method, and why:
 *  - A whole-process figure is a fixed cost (Node start-up, loading the toolchain, writing
 *    small files) plus a part that depends on the size. Fitting a power law to the raw figures
 *    would bend the exponent towards 0 wherever the fixed cost dominates (the small agents), so
 *    the fixed cost is measured — the same command on a one-plugin, one-tool agent, in the same
 *    interleaved run — and subtracted first.
 *  - The size-dependent part is fitted as y − y₀ = c · nᵏ by ordinary least squares on
 *    log(y − y₀) against log n. The exponent k says directly how the cost grows: 1 is linear,
 *    2 quadratic, whatever the units. R² says how well one power law describes all sizes.
 *  - The local exponent between the two largest sizes is reported too: a cost that is linear
 *    for small agents and turns superlinear at scale shows there first.
 *  - A straight-line fit y = a + b·n with its R² is reported for the slope (ms or KiB per
 *    1,000 tools), not for the verdict: over sizes 100…20,000 a line fits n^1.2 with R² > 0.99,
 *    so R² alone cannot tell linear from superlinear.
 * Verdict: "linear" when both exponents lie in [0.85, 1.15], "superlinear" when either exceeds
 * 1.15, "sublinear" when either is below 0.85 (and none above).
 */
import { valueFigure } from "./lib.mjs";

/** Ordinary least squares of y on x: `{ slope, intercept, r2 }`. */
export function leastSquares(xs, ys) {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (xs[i] - mx) * (ys[i] - my);
    sxx += (xs[i] - mx) ** 2;
    syy += (ys[i] - my) ** 2;
  }
  const slope = sxy / sxx;
  const intercept = my - slope * mx;
  const r2 = syy === 0 ? 1 : (sxy * sxy) / (sxx * syy);
  return { slope, intercept, r2 };
}

const LOW = 0.85;
const HIGH = 1.15;

/**
 * Fits `points` (`[{ n, y }]`, n the size, at least two sizes) after subtracting the fixed
 * cost `y0`. Returns `{ exponent, r2, localExponent, linear: { slopePer1000, intercept, r2 },
 * verdict, points }`; `exponent` is null (verdict "undetermined") when fewer than two points
 * stay above the fixed cost.
 */
export function fitGrowth(points, y0) {
  const sorted = [...points].sort((a, b) => a.n - b.n);
  const usable = sorted.filter((p) => p.y - y0 > 0);
  const linear = leastSquares(
    sorted.map((p) => p.n),
    sorted.map((p) => p.y),
  );
  const round = (x, digits = 3) => (Number.isFinite(x) ? Math.round(x * 10 ** digits) / 10 ** digits : null);
  const result = {
    fixedCost: round(y0, 1),
    linear: { slopePer1000: round(linear.slope * 1000, 1), intercept: round(linear.intercept, 1), r2: round(linear.r2, 4) },
    points: sorted.map((p) => ({ n: p.n, y: round(p.y, 1) })),
  };
  if (usable.length < 2) return { exponent: null, r2: null, localExponent: null, verdict: "undetermined", ...result };
  const log = leastSquares(
    usable.map((p) => Math.log(p.n)),
    usable.map((p) => Math.log(p.y - y0)),
  );
  const [a, b] = usable.slice(-2);
  const localExponent = Math.log((b.y - y0) / (a.y - y0)) / Math.log(b.n / a.n);
  const exponents = [log.slope, localExponent];
  const verdict = exponents.some((k) => k > HIGH) ? "superlinear" : exponents.some((k) => k < LOW) ? "sublinear" : "linear";
  return { exponent: round(log.slope), r2: round(log.r2, 4), localExponent: round(localExponent), verdict, ...result };
}

/** What bench/scale.mjs fits: [variant, summary key, measure, unit]. */
const FITS = [
  ["noPackage", "median", "time", "ms"],
  ["noPackage", "cpuMedian", "cpu", "ms"],
  ["noPackage", "rssPeakKb", "memory", "KiB"],
  ["compile", "median", "time", "ms"],
  ["compile", "cpuMedian", "cpu", "ms"],
  ["compile", "rssPeakKb", "memory", "KiB"],
  ["floor", "median", "time", "ms"],
];
const LABELS = { floor: "floor (read + ts.createSourceFile)", noPackage: "compile --no-package, cold", compile: "compile with packaging, cold" };

/**
 * The fit figures (`scale.fit.<command>.<time|cpu|memory>`) of a size scan: `rows` are
 * `{ tools, floor, noPackage, compile }` summaries per size (bench/lib.mjs `summarize`),
 * `fixed` the same three on the one-plugin, one-tool agent. A measure some row lacks (no GNU
 * time) is left out. `extra` fields are added to every figure.
 */
export function scaleFits(rows, fixed, extra = {}) {
  const figures = [];
  for (const [variant, key, what, per] of FITS) {
    if (rows.length === 0 || rows.some((r) => typeof r[variant]?.[key] !== "number") || typeof fixed[variant]?.[key] !== "number") continue;
    const fit = fitGrowth(
      rows.map((r) => ({ n: r.tools, y: r[variant][key] })),
      fixed[variant][key],
    );
    const command = variant === "noPackage" ? "compile-no-package" : variant;
    figures.push(
      valueFigure({
        name: `scale.fit.${command}.${what}`,
        label: `${LABELS[variant]}: ${what === "memory" ? "peak RSS" : what === "cpu" ? "CPU time" : "wall time"} against tools — exponent k of (y − fixed) ∝ tools^k: ${fit.verdict}`,
        unit: "exponent",
        value: fit.exponent,
        per: `${per} per 1000 tools`,
        ...fit,
        ...extra,
      }),
    );
  }
  return figures;
}

/**
 * The same fits from the figures a scan emitted (`scale.fixed-cost` and the per-size
 * `scale.<plugins>x<tools>.compile[-no-package]`), for a scan that stopped before its own fit
 * (bench/report.mjs uses it; the figures say `fittedFrom: "figures"`). Empty without the
 * fixed cost or a size.
 */
export function scaleFitsFromFigures(figures) {
  const fixedFigure = figures.find((f) => f.name === "scale.fixed-cost");
  if (!fixedFigure) return [];
  const bySize = new Map();
  for (const f of figures) {
    const m = /^scale\.(\d+)x(\d+)\.(compile-no-package|compile)$/.exec(f.name);
    if (!m) continue;
    const row = bySize.get(f.plugins) ?? { tools: f.tools, floor: f.baseline };
    row[m[3] === "compile" ? "compile" : "noPackage"] = f;
    bySize.set(f.plugins, row);
  }
  const rows = [...bySize.values()].filter((r) => r.noPackage && r.compile);
  return scaleFits(rows, { compile: fixedFigure, noPackage: fixedFigure.noPackage, floor: fixedFigure.floor }, { fittedFrom: "figures" });
}
