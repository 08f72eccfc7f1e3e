/**
 * The setup file test/setup/machine-env.ts: the processes a test starts do not inherit the
 * machine's NODE_EXTRA_CA_CERTS (Node 20 parses that file at every start), and the value stays
 * available to the tests that hand it on (npm in the pre-commit test).
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import { describe, expect, it } from "vitest";

// Read where the setup file keeps it, not through an import of the setup file: importing it would
// take the variable out itself, and this test checks that vitest runs it before every file.
const machineExtraCaCerts = (): string | undefined => (globalThis as Record<symbol, { value: string | undefined } | undefined>)[Symbol.for("assembly-line.test.machine-extra-ca-certs")]?.value;

describe("the machine's NODE_EXTRA_CA_CERTS", () => {
  it("is not in the environment a test's process inherits", () => {
    const child = spawnSync(process.execPath, ["-p", "process.env.NODE_EXTRA_CA_CERTS ?? '(unset)'"], { encoding: "utf8" });
    expect(child.stdout.trim()).toBe("(unset)");
    expect(process.env.NODE_EXTRA_CA_CERTS).toBeUndefined();
  });

  // The environment this worker process started with (Linux: /proc/self/environ keeps it as it was at exec).
  it.runIf(fs.existsSync("/proc/self/environ"))("is kept for the tests that hand it on, as the worker process started with it", () => {
    const started = fs.readFileSync("/proc/self/environ", "utf8").split("\0").find((entry) => entry.startsWith("NODE_EXTRA_CA_CERTS="));
    expect(machineExtraCaCerts()).toBe(started?.slice("NODE_EXTRA_CA_CERTS=".length));
  });
});
