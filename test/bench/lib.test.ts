/**
 * bench/lib.mjs: the shared convention of the bench scripts — interleaved runs with a rotating
 * order, median/min/max summaries, whole-process timing with CPU and peak RSS, and figures.
 */
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

interface Sample {
  wallMs: number;
  cpuMs: number | null;
  rssKb: number | null;
  status: number;
  stdout: string;
}
interface Target {
  op: "<=" | "<" | ">=";
  value: number;
}
interface LibModule {
  interleave(variants: { name: string; run(): unknown; before?(): void }[], options: { runs: number; warmup?: number }): Record<string, unknown[]>;
  median(values: number[]): number;
  quantile(values: number[], q: number): number;
  summarize(samples: Partial<Sample>[]): { median: number; min: number; max: number; n: number; cpuMedian: number | null; rssPeakKb: number | null };
  timeNode(args: string[], options?: { okStatuses?: number[] }): Sample;
  ratioFigure(options: Record<string, unknown>): Record<string, unknown> & { value: number; meets?: boolean; baseline: Record<string, unknown> };
  valueFigure(options: Record<string, unknown>): Record<string, unknown> & { value: number; meets?: boolean };
  formatFigure(figure: Record<string, unknown>): string;
  parseBenchArgs(options?: Record<string, unknown>, argv?: string[]): { quick: boolean; json: boolean; values: Record<string, unknown>; positionals: string[] };
  meets(value: number, target: Target): boolean;
}

// bench/ is plain ESM JavaScript without declarations; the test names the types it uses.
const lib = (await import(pathToFileURL(path.resolve(import.meta.dirname, "../../bench/lib.mjs")).href)) as LibModule;

describe("bench/lib.mjs", () => {
  it("interleaves the variants with a rotating order and drops the warm-up rounds", () => {
    const order: string[] = [];
    const variant = (name: string) => ({ name, before: () => order.push(`before ${name}`), run: () => (order.push(name), { wallMs: order.length }) });
    const samples = lib.interleave([variant("a"), variant("b"), variant("c")], { runs: 3, warmup: 1 });
    const runs = order.filter((step) => !step.startsWith("before"));
    // warm-up round starts at the last variant (round -1), then a, b, c lead in turn.
    expect(runs).toEqual(["c", "a", "b", "a", "b", "c", "b", "c", "a", "c", "a", "b"]);
    expect(order.filter((step) => step.startsWith("before")).length).toBe(12);
    expect(Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, v.length]))).toEqual({ a: 3, b: 3, c: 3 });
  });

  it("summarizes samples: median, min, max, CPU median and the peak RSS", () => {
    const summary = lib.summarize([
      { wallMs: 30, cpuMs: 20, rssKb: 100 },
      { wallMs: 10, cpuMs: 10, rssKb: 300 },
      { wallMs: 20, cpuMs: 40, rssKb: 200 },
      { wallMs: 50, cpuMs: 30, rssKb: 150 },
    ]);
    expect(summary).toEqual({ median: 25, min: 10, max: 50, n: 4, cpuMedian: 25, rssPeakKb: 300 });
    expect(lib.summarize([{ wallMs: 5, cpuMs: null, rssKb: null }])).toMatchObject({ cpuMedian: null, rssPeakKb: null });
    expect(lib.quantile([5, 1, 4, 2, 3], 0.95)).toBe(5);
    expect(lib.median([3, 1, 2])).toBe(2);
  });

  it("times a whole process, and refuses an unexpected exit status", () => {
    const sample = lib.timeNode(["-e", "process.stdout.write('hi')"]);
    expect(sample.wallMs).toBeGreaterThan(0);
    expect(sample.stdout).toBe("hi");
    // CPU and peak RSS come from GNU time where the machine has it.
    if (sample.rssKb !== null) expect(sample.rssKb).toBeGreaterThan(1000);
    expect(() => lib.timeNode(["-e", "process.exit(3)"])).toThrow(/exited 3/);
    expect(lib.timeNode(["-e", "process.exit(1)"], { okStatuses: [0, 1] }).status).toBe(1);
  });

  it("makes ratio figures of the medians, with the target's verdict", () => {
    const figure = lib.ratioFigure({
      name: "x.y",
      label: "subject",
      baselineLabel: "baseline",
      subject: [{ wallMs: 30 }, { wallMs: 10 }, { wallMs: 20 }],
      baseline: [{ wallMs: 10 }, { wallMs: 10 }, { wallMs: 10 }],
      target: { op: "<=", value: 2 },
    });
    expect(figure).toMatchObject({ name: "x.y", unit: "×", value: 2, ratio: 2, meets: true, median: 20, min: 10, max: 30, n: 3 });
    expect(figure.baseline).toMatchObject({ label: "baseline", median: 10 });
    expect(lib.formatFigure(figure)).toContain("ratio 2.00×  [target ≤ 2×: meets]");
    const missed = lib.valueFigure({ name: "p95", label: "p95", unit: "ms", value: 120, target: { op: "<", value: 100 } });
    expect(missed.meets).toBe(false);
    expect(lib.formatFigure(missed)).toContain("[target < 100 ms: MISSES]");
  });

  it("parses the shared flags next to a script's own", () => {
    const parsed = lib.parseBenchArgs({ runs: { type: "string" } }, ["--quick", "--json", "--runs", "3", "7"]);
    expect(parsed).toMatchObject({ quick: true, json: true, positionals: ["7"] });
    expect(parsed.values["runs"]).toBe("3");
  });
});
