/**
 * `node bench/run.mjs` and the other scripts that take the shared flags (`parseBenchArgs`,
 * bench/lib.mjs): `--help`/`-h` prints the usage and exits 0, and an unknown flag is refused with
 * the usage (exit 2), as `bench/runtime.mjs` does (README trial of 6 December: `run.mjs --help`
 * ended in an uncaught ERR_PARSE_ARGS_UNKNOWN_OPTION stack). Runs no measurement.
 */
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import { describe, expect, it } from "vitest";

const bench = (script: string) => path.resolve(import.meta.dirname, "../../bench", script);
const run = (script: string, ...args: string[]) => spawnSync(process.execPath, [bench(script), ...args], { encoding: "utf8", timeout: 60_000 });

describe("bench/run.mjs flags", () => {
  it.each(["--help", "-h"])("%s prints every option and runs no script", (flag) => {
    const result = run("run.mjs", flag);
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^Usage: node bench\/run\.mjs \[options\]/);
    for (const option of ["--quick", "--json", "--write", "--out DIR", "--only a,b", "--render FILE", "--help"]) expect(result.stdout).toContain(option);
  });

  it("refuses an unknown flag with what is wrong and the options, without a stack", () => {
    const result = run("run.mjs", "--bogus");
    expect(result.status).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("bench/run.mjs: Unknown option '--bogus'");
    expect(result.stderr).toContain("Usage: node bench/run.mjs [options]");
    expect(result.stderr).not.toMatch(/^\s+at /m);
  });
});

describe("the other scripts of the shared flags", () => {
  it.each(["compile.mjs", "scale.mjs", "incremental.mjs", "packaging.mjs", "startup.mjs", "search.mjs", "editor.mjs", "lsp.mjs", "providers.mjs"])("%s: --help prints its usage, an unknown flag is exit 2", (script) => {
    const help = run(script, "--help");
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(new RegExp(`^Usage: node bench/${script.replace(".", "\\.")} `));
    expect(help.stdout).toContain("--quick");
    expect(help.stdout).toContain("--json");
    const bad = run(script, "--bogus");
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain(`bench/${script}: Unknown option '--bogus'`);
    expect(bad.stderr).not.toMatch(/^\s+at /m);
  });
});
