/**
 * The list of test files that need a process of their own (test/setup/own-process-files.ts):
 * every file that mocks modules or changes process-wide state is on it, and every file on it
 * exists. A file missing from the list would share a worker process with other files, where its
 * mocks do not apply to modules already loaded and its changes leak into the files after it.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { OWN_PROCESS_FILES } from "./own-process-files.js";
import { repoRoot } from "../helpers/temp-tree.js";

/** What makes a test file need its own process (built from parts so this file does not match itself). */
const NEEDS_OWN_PROCESS: readonly RegExp[] = [
  new RegExp(String.raw`\bvi\.(?:mock|doMock|unmock|resetModules|stubEnv|stubGlobal)\(`),
  new RegExp(String.raw`\bprocess\.chdir\(`),
  new RegExp(String.raw`\bprocess\.env(?:\.[A-Za-z_$][\w$]*|\[[^\]]+\])\s*=(?!=)`),
  new RegExp(String.raw`\bdelete\s+process\.env\b`),
  new RegExp(String.raw`\bprocess\.umask\(\s*[^)\s]`),
  new RegExp(String.raw`\bprocess\.(?:kill|exit|emit|umask|chdir|cwd|hrtime|nextTick)\s*=(?!=)`),
];

/** Every `*.test.ts` under `test/` that `npm test` runs (the conformance suite has its own config), `/`-separated, relative to the root. */
function testFiles(): string[] {
  return fs
    .readdirSync(path.join(repoRoot, "test"), { recursive: true, encoding: "utf8" })
    .map((file) => `test/${file.split(path.sep).join("/")}`)
    .filter((file) => file.endsWith(".test.ts") && !file.startsWith("test/conformance/"))
    .sort();
}

/** Whether `text` does something {@link NEEDS_OWN_PROCESS} names. */
function needsOwnProcess(text: string): boolean {
  return NEEDS_OWN_PROCESS.some((pattern) => pattern.test(text));
}

describe("test files that need a process of their own", () => {
  it("recognises mocks, environment changes and a change of working directory", () => {
    expect(needsOwnProcess('vi.mock("node:fs", () => ({}));')).toBe(true);
    expect(needsOwnProcess("vi.resetModules();")).toBe(true);
    expect(needsOwnProcess('vi.stubEnv("CI", "true");')).toBe(true);
    expect(needsOwnProcess("process.chdir(root);")).toBe(true);
    expect(needsOwnProcess("process.env.SECRET = value;")).toBe(true);
    expect(needsOwnProcess('process.env["A_B"] = "1";')).toBe(true);
    expect(needsOwnProcess("delete process.env.SECRET;")).toBe(true);
    expect(needsOwnProcess("process.umask(0o077);")).toBe(true);
    expect(needsOwnProcess("process.kill = fake;")).toBe(true);
    expect(needsOwnProcess("const mask = process.umask();")).toBe(false);
    expect(needsOwnProcess("if (process.exitCode === 1) {}")).toBe(false);
    expect(needsOwnProcess("`process.exitCode = 1;`")).toBe(false);
    // Reading the environment, comparing it, or passing a copy to a child is fine.
    expect(needsOwnProcess('const env = { ...process.env, NO_COLOR: "1" };')).toBe(false);
    expect(needsOwnProcess('if (process.env.CI === "true") {}')).toBe(false);
    expect(needsOwnProcess("vi.spyOn(Foo.prototype, 'bar');")).toBe(false);
  });

  it("lists every file that needs one, and only files that exist", () => {
    const files = testFiles();
    const needing = files.filter((file) => file !== "test/setup/own-process-files.test.ts" && needsOwnProcess(fs.readFileSync(path.join(repoRoot, file), "utf8")));
    expect(needing.filter((file) => !OWN_PROCESS_FILES.includes(file))).toEqual([]);
    expect(OWN_PROCESS_FILES.filter((file) => !files.includes(file))).toEqual([]);
  });
});
