/**
 * What a verified copy is (`runtime-min/artifact/verified-copy.ts`) and who checks it: the cache
 * keeps only intact copies (`materializeBundle`), the early start spawns nothing for another file,
 * and the sandbox process imports nothing but the very file the runtime hashed
 * (`runtime-min/artifact/copy-identity.ts`), also when its mount namespace holds an older file
 * than the one the runtime verified (security trial 128, HIGH 3).
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { openRuntime } from "../../runtime-min/index.js";
import { materializeBundle } from "../../runtime-min/artifact/bundle-cache.js";
import { hasIdentity } from "../../runtime-min/artifact/copy-identity.js";
import { checkIntactCopy, readIntactCopy, verifiedCopyName } from "../../runtime-min/artifact/verified-copy.js";
import { SANDBOX_START_FILE, startSandboxEarly, type SandboxStartEntry } from "../../runtime-min/execution/early-start.js";
import { seedTools } from "../helpers/support-agent.js";
import { tempDir } from "../helpers/temp-tree.js";
import { createAgent } from "./helpers/agent-fixture.js";
import { fixSandboxLaunchTools, holdFixtures } from "./helpers/held-fixtures.js";

const MARKER = "TAMPERED-COPY-RAN";

fixSandboxLaunchTools();
const held = holdFixtures();

/** A copy of `text` in a fresh `bundles/` folder, named as the runtime names it. */
function copyOf(text: string): string {
  const dir = path.join(tempDir("al-copy-"), "bundles");
  fs.mkdirSync(dir);
  const file = path.join(dir, verifiedCopyName(Buffer.from(text)));
  fs.writeFileSync(file, text);
  return file;
}

describe("readIntactCopy", () => {
  it("returns the bytes of a regular file that hashes to its name, and nothing for anything else", () => {
    const file = copyOf("export default 1;\n");
    expect(readIntactCopy(file)?.toString()).toBe("export default 1;\n");
    const named = path.join(path.dirname(file), `${createHash("sha256").update("x").digest("hex")}.mjs`);
    fs.writeFileSync(named, "export default 2;\n");
    expect(readIntactCopy(named)).toBeUndefined();
    const link = path.join(path.dirname(file), verifiedCopyName(Buffer.from("export default 1;\n")).replace(/^./, (c) => (c === "0" ? "1" : "0")));
    fs.symlinkSync(file, link);
    expect(readIntactCopy(link)).toBeUndefined();
    // A link under the very name its target hashes to is no copy either.
    const target = path.join(tempDir("al-elsewhere-"), "target.mjs");
    fs.renameSync(file, target);
    fs.symlinkSync(target, file);
    expect(readIntactCopy(file)).toBeUndefined();
    fs.rmSync(file);
    expect(readIntactCopy(file)).toBeUndefined();
    fs.mkdirSync(file);
    expect(readIntactCopy(file)).toBeUndefined();
    const unnamed = path.join(path.dirname(file), "bundle.mjs");
    fs.writeFileSync(unnamed, "export default 1;\n");
    expect(readIntactCopy(unnamed)).toBeUndefined();
  });
});

describe("hasIdentity", () => {
  it("holds for the very file checked, unchanged, and for nothing else: not one written since, swapped in, or a link to it", () => {
    const file = copyOf("export default 1;\n");
    const checked = checkIntactCopy(file)!;
    expect(checked.bytes.toString()).toBe("export default 1;\n");
    expect(hasIdentity(file, checked.identity)).toBe(true);
    fs.chmodSync(file, 0o644);
    fs.writeFileSync(file, "export default 1;\n");
    expect(hasIdentity(file, checked.identity)).toBe(false);
    const again = checkIntactCopy(file)!;
    expect(hasIdentity(file, again.identity)).toBe(true);
    fs.copyFileSync(file, `${file}.new`);
    fs.renameSync(`${file}.new`, file);
    expect(hasIdentity(file, again.identity)).toBe(false);
    const now = checkIntactCopy(file)!;
    const link = path.join(tempDir("al-link-"), "link.mjs");
    fs.symlinkSync(file, link);
    expect(hasIdentity(link, now.identity)).toBe(false);
    expect(hasIdentity(path.join(path.dirname(file), "missing.mjs"), now.identity)).toBe(false);
  });
});

describe("materializeBundle", () => {
  it("keeps an intact copy, and replaces anything else under its name without writing through a link, saying what it replaced", () => {
    const stateDir = tempDir("al-state-");
    const bytes = Buffer.from("export default 1;\n");
    const { path: file, replaced } = materializeBundle(stateDir, bytes);
    expect(replaced).toBeUndefined();
    const before = fs.statSync(file).ino;
    expect(materializeBundle(stateDir, bytes)).toEqual({ path: file });
    expect(fs.statSync(file).ino).toBe(before);
    const elsewhere = path.join(tempDir("al-elsewhere-"), "other.mjs");
    fs.writeFileSync(elsewhere, bytes);
    fs.rmSync(file);
    fs.symlinkSync(elsewhere, file);
    expect(materializeBundle(stateDir, bytes)).toEqual({ path: file, replaced: "a symbolic link" });
    expect(fs.lstatSync(file).isFile()).toBe(true);
    fs.chmodSync(file, 0o644);
    fs.writeFileSync(file, `throw new Error("${MARKER}");\n`);
    expect(materializeBundle(stateDir, bytes)).toEqual({ path: file, replaced: "edited" });
    expect(fs.readFileSync(file)).toEqual(bytes);
    expect(fs.readFileSync(elsewhere)).toEqual(bytes);
    // A deleted copy is written without a word: the folder is safe to delete.
    fs.rmSync(file);
    expect(materializeBundle(stateDir, bytes)).toEqual({ path: file });
  });
});

describe("a copy changed after the early start spawned its process", () => {
  it("is never imported: the call is refused with AL8012 where the process kept the changed file, else it runs the verified bytes", async () => {
    held.agent = await createAgent([{ name: "echo", file: seedTools.echo }]);
    const first = await openRuntime({ root: held.agent.root, firstCall: { tool: "echo", runId: "run-a" } });
    expect(await first.call({ tool: "echo", input: { message: "hi" }, runId: "run-a" })).toMatchObject({ status: "ok" });
    await first.close();
    const entry = (JSON.parse(fs.readFileSync(path.join(held.agent.root, SANDBOX_START_FILE), "utf8")) as { starts: Record<string, SandboxStartEntry> }).starts[".\u0000echo"]!;
    const copy = entry.bundlePath;
    // The copy is intact: the early process starts, and its mount namespace binds the copy's file
    // (the agent lies under the OS temp folder, which the link guard hides and puts the copy back in).
    held.early = startSandboxEarly({ root: held.agent.root, tool: "echo" });
    expect(held.early).toBeDefined();
    const doorbell = (held.early as unknown as { spawned: { child: { stdio: { once(event: string, listener: () => void): void }[] } } }).spawned.child.stdio[3]!;
    await new Promise<void>((resolve) => doorbell.once("readable", () => resolve()));
    // Now that very file is edited in place; the runtime then writes the verified bytes under the
    // copy's name anew (a new file) and checks those, while the early process still holds the edited one.
    const edited = `throw new Error(${JSON.stringify(MARKER)});\n${fs.readFileSync(copy, "utf8")}`;
    fs.chmodSync(copy, 0o644);
    fs.writeFileSync(copy, edited);
    held.runtime = await openRuntime({ root: held.agent.root, firstCall: { tool: "echo", runId: held.early!.runId }, earlyStart: held.early! });
    expect(fs.readFileSync(copy, "utf8")).not.toContain(MARKER);
    // The runtime says it wrote the copy anew (AL8069).
    expect(held.runtime.warnings.filter((warning) => warning.code === "AL8069")).toEqual([expect.objectContaining({ severity: "warning", message: expect.stringContaining("of tool 'echo' was edited") })]);
    let outcome: unknown;
    try {
      outcome = await held.runtime.call({ tool: "echo", input: { message: "hi" }, runId: held.early!.runId });
    } catch (error) {
      outcome = error;
    }
    expect(JSON.stringify(outcome) + String(outcome)).not.toContain(MARKER);
    if (outcome instanceof Error) {
      expect(outcome).toMatchObject({ name: "RuntimeError", code: "AL8012" });
      // The process that held the edited file is not used again: the next call spawns a fresh one and runs the verified bytes.
      const again = await held.runtime.call({ tool: "echo", input: { message: "again" }, runId: held.early!.runId });
      expect(again, JSON.stringify(again)).toMatchObject({ status: "ok", output: { message: "again" } });
    } else {
      expect(outcome).toMatchObject({ status: "ok", output: { message: "hi" } });
    }
  }, 60_000);
});

// Helper-133: a host that runs for long found its copy removed (a cleaned `.assemblyline/bundles/`)
// and refused the next call with AL8012, "hashes to different bytes".
describe("a copy removed while the runtime is open", () => {
  it("is written anew from the artifact and the call runs; when the artifact no longer holds its bytes, AL8012 says it was removed", async () => {
    held.agent = await createAgent([{ name: "echo", file: seedTools.echo }]);
    held.runtime = await openRuntime({ root: held.agent.root });
    expect(await held.runtime.call({ tool: "echo", input: { message: "hi" }, runId: "run-1" })).toMatchObject({ status: "ok" });
    const bundles = path.join(held.agent.root, ".assemblyline", "bundles");
    const copies = fs.readdirSync(bundles).filter((name) => name.endsWith(".mjs"));
    expect(copies).toHaveLength(1);
    fs.rmSync(path.join(bundles, copies[0]!));
    // A new run starts a new sandbox process, which checks the copy first.
    expect(await held.runtime.call({ tool: "echo", input: { message: "again" }, runId: "run-2" })).toMatchObject({ status: "ok", output: { message: "again" } });
    expect(readIntactCopy(path.join(bundles, copies[0]!))).toBeDefined();

    fs.rmSync(path.join(bundles, copies[0]!));
    const artifactBundles = fs.readdirSync(path.join(held.agent.root, ".assemblyline", "build"), { recursive: true, encoding: "utf8" }).filter((name) => name.endsWith(".mjs"));
    expect(artifactBundles).toHaveLength(1);
    const artifactBundle = path.join(held.agent.root, ".assemblyline", "build", artifactBundles[0]!);
    fs.chmodSync(artifactBundle, 0o644);
    fs.appendFileSync(artifactBundle, "\n// compiled again\n");
    await expect(held.runtime.call({ tool: "echo", input: { message: "third" }, runId: "run-3" })).rejects.toMatchObject({ code: "AL8012", message: expect.stringContaining("it was removed") });
    expect(fs.existsSync(path.join(bundles, copies[0]!))).toBe(false);
  }, 60_000);
});
