/**
 * `node bench/runtime.mjs` flags: `--help` prints the options and exits 0, and an unknown or
 * malformed flag is refused with them (exit 2), where it used to end in an uncaught
 * ERR_PARSE_ARGS_UNKNOWN_OPTION stack. Runs no measurement.
 */
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import { describe, expect, it } from "vitest";

const SCRIPT = path.resolve(import.meta.dirname, "../../bench/runtime.mjs");
const run = (...args: string[]) => spawnSync(process.execPath, [SCRIPT, ...args], { encoding: "utf8", timeout: 60_000 });

describe("bench/runtime.mjs flags", () => {
  it.each(["--help", "-h"])("%s prints every option and measures nothing", (flag) => {
    const result = run(flag);
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^Usage: node bench\/runtime\.mjs \[options\]/);
    for (const option of ["--calls N", "--warmup N", "--call-ids", "--dist DIR", "--baseline DIR", "--json", "--quick", "--help"]) expect(result.stdout).toContain(option);
  });

  it.each([
    { args: ["--bogus"], says: "Unknown option '--bogus'" },
    { args: ["--calls", "many"], says: "--calls many is not a whole number of calls" },
  ])("refuses $args with what is wrong and the options", ({ args, says }) => {
    const result = run(...args);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain(`bench/runtime.mjs: ${says}`);
    expect(result.stderr).toContain("Usage: node bench/runtime.mjs");
    expect(result.stderr).not.toMatch(/^\s+at /m);
  });
});
