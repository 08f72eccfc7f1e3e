/**
 * AL9002: a failure no input should be able to cause (a bug) ends the command with exit code 2,
 * the stack on stderr and, with `--format json`, still exactly one JSON document on stdout.
 * The bug is simulated by a `validate` command module that throws.
 */
import { afterEach, expect, it, vi } from "vitest";

vi.mock("../../cli/commands/validate.js", () => ({
  runValidate: () => {
    throw new Error("simulated bug");
  },
}));

afterEach(() => vi.restoreAllMocks());

it("reports an unexpected exception as AL9002 with exit code 2", async () => {
  const { main } = await import("../../cli/main.js");
  const stdout: string[] = [];
  const stderr: string[] = [];
  vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => (stdout.push(String(chunk)), true));
  vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => (stderr.push(String(chunk)), true));

  const exitCode = await main(["validate", ".", "--format", "json"]);

  expect(exitCode).toBe(2);
  expect(stderr.join("")).toContain("assembly-line: internal error: Error: simulated bug");
  expect(JSON.parse(stdout.join(""))).toMatchObject({
    ok: false,
    diagnostics: [{ code: "AL9002", severity: "error", message: "Internal error: simulated bug" }],
  });
});
