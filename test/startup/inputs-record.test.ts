/**
 * The inputs record (cli/inputs-record.ts; issue 14 item 3): a host command skips the compile's
 * check only while every input that check read is unchanged. Each test changes one kind of
 * input and expects the record to stop holding, so the check runs again; and a touch alone,
 * which changes no content, keeps it.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { ensureArtifact, type CompilerLoader } from "../../cli/ensure-artifact.js";
import { INPUTS_RECORD_FILE, inputsUnchanged } from "../../cli/inputs-record.js";
import { compileSettingsKey } from "../../build/compile-settings.js";
import { copyAgent } from "../helpers/copy-agent.js";
import { repoRoot } from "../helpers/temp-tree.js";

let root: string;
const loadCompiler: CompilerLoader = () => import("../../build/compile.js");
const entry = (): string => path.join(root, "plugins/example/ai.assemblyline/echo.ts");
const record = (): string => path.join(root, INPUTS_RECORD_FILE);

/** Moves the record's start an hour ahead, so no input counts as racy and `stat` alone decides. */
function trustStats(): void {
  const content = JSON.parse(fs.readFileSync(record(), "utf8")) as { startedAt: number };
  fs.writeFileSync(record(), JSON.stringify({ ...content, startedAt: Date.now() + 3_600_000 }));
}

beforeEach(async () => {
  root = copyAgent(path.join(repoRoot, "examples", "support-agent"));
  const first = await ensureArtifact(root, loadCompiler);
  expect(first.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  expect(first.recorded).toBe(false);
}, 120_000);

describe("the inputs record", () => {
  it("lets the next host command skip the check while nothing changed", async () => {
    expect(fs.existsSync(record())).toBe(true);
    expect(inputsUnchanged(root)).toBe(true);
    const second = await ensureArtifact(root, loadCompiler);
    expect(second).toMatchObject({ recorded: true, compiled: false, lockChanged: false, diagnostics: [] });
  });

  it("holds only for the compile settings it was made under (a target or budget added changes no input file)", async () => {
    const settings = { targets: ["openai"], tokenBudget: 100000 };
    expect(inputsUnchanged(root, compileSettingsKey(settings))).toBe(false);
    // The check under those settings runs (and passes: the example is within both), and records them.
    expect(await ensureArtifact(root, loadCompiler, undefined, { settings })).toMatchObject({ recorded: false, compiled: false, diagnostics: [] });
    expect(inputsUnchanged(root, compileSettingsKey(settings))).toBe(true);
    expect(inputsUnchanged(root, compileSettingsKey({ ...settings, tokenBudget: 100 }))).toBe(false);
    expect(inputsUnchanged(root)).toBe(false);
    // Where the settings are written changes no verdict: the same key.
    expect(compileSettingsKey({ maxWarnings: { limit: 0, source: "--max-warnings" } })).toBe(compileSettingsKey({ maxWarnings: { limit: 0, source: "maxWarnings in x.json" } }));
    expect(compileSettingsKey({ rules: { AL4039: "error", AL1015: "off" } })).toBe(compileSettingsKey({ rules: { AL1015: "off", AL4039: "error" } }));
  });

  it("holds after a touch that changes no content (the content hash decides)", () => {
    trustStats();
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(entry(), later, later);
    expect(inputsUnchanged(root)).toBe(true);
  });

  it("sees an edit that keeps the size and the mtime (ctime moves)", async () => {
    // A whole-second mtime, so setting it back is exact; then a fresh record of that state.
    const mtime = new Date("2025-01-01T00:00:00Z");
    fs.utimesSync(entry(), mtime, mtime);
    fs.rmSync(record());
    expect(await ensureArtifact(root, loadCompiler)).toMatchObject({ recorded: false, compiled: false });
    trustStats();
    expect(inputsUnchanged(root)).toBe(true);
    const text = fs.readFileSync(entry(), "utf8");
    const edited = text.replace("Echo a message back to the caller.", "Echo a message back to the CALLER.");
    expect(edited).not.toBe(text);
    expect(edited.length).toBe(text.length);
    fs.writeFileSync(entry(), edited);
    fs.utimesSync(entry(), mtime, mtime);
    expect(fs.statSync(entry()).mtimeMs).toBe(mtime.getTime());
    expect(inputsUnchanged(root)).toBe(false);
  }, 120_000);

  it("sees an edit made right after the recording (a racy file is compared by content)", () => {
    const text = fs.readFileSync(entry(), "utf8");
    fs.writeFileSync(entry(), text.replace("Echo a message back to the caller.", "Echo a message back to the CALLER."));
    expect(inputsUnchanged(root)).toBe(false);
  });

  it("sees a changed agent.md, plugins.lock and plugin.json", () => {
    for (const file of ["agent.md", "plugins.lock", "plugins/example/plugin.json"]) {
      const at = path.join(root, file);
      const text = fs.readFileSync(at, "utf8");
      fs.writeFileSync(at, `${text}\n`);
      expect(inputsUnchanged(root), file).toBe(false);
      fs.writeFileSync(at, text);
      expect(inputsUnchanged(root), `${file} restored`).toBe(true);
    }
  });

  it("sees a new file in a folder the compile listed, and a removed one", () => {
    const added = path.join(root, "plugins/example/ai.assemblyline/extra.ts");
    fs.writeFileSync(added, "export const extra = 1;\n");
    expect(inputsUnchanged(root)).toBe(false);
    fs.rmSync(added);
    expect(inputsUnchanged(root)).toBe(true);
    fs.renameSync(path.join(root, "plugins/example"), path.join(root, "plugins/example-moved"));
    expect(inputsUnchanged(root)).toBe(false);
  });

  it("belongs to one root and one toolchain; a damaged record is ignored", () => {
    const content = JSON.parse(fs.readFileSync(record(), "utf8")) as Record<string, unknown>;
    fs.writeFileSync(record(), JSON.stringify({ ...content, root: path.join(root, "elsewhere") }));
    expect(inputsUnchanged(root)).toBe(false);
    fs.writeFileSync(record(), JSON.stringify({ ...content, toolchain: "another toolchain" }));
    expect(inputsUnchanged(root)).toBe(false);
    fs.writeFileSync(record(), "{ not json");
    expect(inputsUnchanged(root)).toBe(false);
    fs.writeFileSync(record(), JSON.stringify(content));
    expect(inputsUnchanged(root)).toBe(true);
  });

  it("a changed input makes the host command check and compile again, then record anew", async () => {
    for (const file of ["index.ts", "echo.ts"]) {
      const at = path.join(root, "plugins/example/ai.assemblyline", file);
      fs.writeFileSync(at, fs.readFileSync(at, "utf8").replace("Echo a message back to the caller.", "Echo a message back, unchanged."));
    }
    const changed = await ensureArtifact(root, loadCompiler);
    expect(changed).toMatchObject({ recorded: false, compiled: true, lockChanged: true });
    expect(fs.readFileSync(path.join(root, "plugins.lock"), "utf8")).toContain("Echo a message back, unchanged.");
    // That compile changed the lock it had read, so it left no record; the next command checks and records.
    expect(await ensureArtifact(root, loadCompiler)).toMatchObject({ recorded: false, compiled: false });
    expect(await ensureArtifact(root, loadCompiler)).toMatchObject({ recorded: true, compiled: false });
  }, 120_000);

  it("a stale artifact is rebuilt even when the record holds", async () => {
    fs.rmSync(path.join(root, ".assemblyline/build"), { recursive: true });
    expect(inputsUnchanged(root)).toBe(true);
    expect(await ensureArtifact(root, loadCompiler)).toMatchObject({ recorded: false, compiled: true, lockChanged: false });
    expect(fs.existsSync(path.join(root, ".assemblyline/build/manifest.json"))).toBe(true);
  }, 120_000);
});
