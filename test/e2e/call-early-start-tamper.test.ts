/**
 * A verified copy (`.assemblyline/bundles/<sha256>.mjs`) changed between two calls never runs,
 * also through `call`'s early start (security trial 128, HIGH 3): the early process was spawned
 * with the copy as it was on disk, and its mount namespace kept that file (an agent under `/tmp`,
 * a folder the link guard hides) while the runtime wrote the verified bytes anew, so the adopted
 * process ran the edited code. Now the early start spawns nothing for a copy that does not hash
 * to its name or is not a regular file, and the sandbox process hashes the bytes it imports.
 * Whatever was done to the copy, the call runs the verified bytes (runtime-min/README.md,
 * "Artifact verification").
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { copyAgent } from "../helpers/copy-agent.js";
import { runCli } from "../helpers/run-cli.js";
import { supportAgentRoot } from "../helpers/support-agent.js";
import { repoRoot, tempDir } from "../helpers/temp-tree.js";

const probe = path.join(repoRoot, "test/fixtures/early-start/spawn-probe.cjs");
const START_FILE = ".assemblyline/cache/sandbox-start.json";
const INPUT = ["echo", "--input", '{"message":"hi"}', "--format", "json"];
/** What the edited copy throws when it runs: never in a call's output. */
const MARKER = "TAMPERED-COPY-RAN";

/** Runs `call echo` with the spawn probe preloaded; returns the run and, per sandbox spawn, whether the CLI bundle was loaded by then. */
function probedCall(root: string): { status: number | null; stdout: string; stderr: string; spawns: { bundleLoaded: boolean }[] } {
  const file = path.join(tempDir("al-probe-"), "spawns.json");
  const run = runCli(["call", ...INPUT], { cwd: root, env: { NODE_OPTIONS: `--require ${probe}`, AL_SPAWN_PROBE_FILE: file } });
  return { ...run, spawns: JSON.parse(fs.readFileSync(file, "utf8")) as { bundleLoaded: boolean }[] };
}

/** An agent whose `echo` was called once (its start remembered); returns the root and the remembered copy of echo's bundle. */
function calledOnce(): { root: string; copy: string } {
  const root = copyAgent(supportAgentRoot);
  const first = runCli(["call", ...INPUT], { cwd: root });
  expect(first.status, first.stderr).toBe(0);
  const starts = (JSON.parse(fs.readFileSync(path.join(root, START_FILE), "utf8")) as { starts: Record<string, { bundlePath: string }> }).starts;
  const copy = starts[".\u0000echo"]?.bundlePath;
  expect(copy).toBeDefined();
  return { root, copy: copy! };
}

/** The edited bytes: the copy with a first line that throws the marker. */
function edited(copy: string): string {
  return `throw new Error(${JSON.stringify(MARKER)});\n${fs.readFileSync(copy, "utf8")}`;
}

/** Replaces `copy` by a new file of `text`, as `sed -i` does (a new inode under the same name). */
function replaceFile(copy: string, text: string): void {
  const next = `${copy}.edit`;
  fs.writeFileSync(next, text);
  fs.renameSync(next, copy);
}

/** Expects the call to have run the verified bytes: status ok, echo's answer, no trace of the edited code. */
function expectVerifiedRan(run: { status: number | null; stdout: string; stderr: string }): void {
  expect(run.stdout + run.stderr).not.toContain(MARKER);
  expect(run.status, run.stdout + run.stderr).toBe(0);
  expect(JSON.parse(run.stdout)).toMatchObject({ status: "ok", output: { message: "hi" } });
}

describe("assembly-line call: a changed verified copy never runs through the early start", () => {
  it("an edited copy (replaced as sed -i does, and edited in place): the early start spawns nothing, the call runs the verified bytes", () => {
    const { root, copy } = calledOnce();
    replaceFile(copy, edited(copy));
    const replaced = probedCall(root);
    expectVerifiedRan(replaced);
    // Not silently: the CLI says the copy was edited and written anew (AL8069).
    expect(replaced.stderr).toMatch(/warning AL8069: The verified copy \.assemblyline\/bundles\/[0-9a-f]{64}\.mjs of tool 'echo' was edited/);
    // No early process for a copy that does not hash to its name: the runtime spawned after verifying.
    expect(replaced.spawns).toEqual([{ bundleLoaded: true }]);
    // The runtime wrote the verified bytes back: the next call starts early again.
    expect(fs.readFileSync(copy, "utf8")).not.toContain(MARKER);
    expect(probedCall(root).spawns).toEqual([{ bundleLoaded: false }]);
    // Edited in place (the same inode, made writable first).
    const text = edited(copy);
    fs.chmodSync(copy, 0o644);
    fs.writeFileSync(copy, text);
    const inPlace = probedCall(root);
    expectVerifiedRan(inPlace);
    expect(inPlace.stderr).toContain("AL8069");
    expect(inPlace.spawns).toEqual([{ bundleLoaded: true }]);
  }, 120_000);

  it("a copy replaced by a symbolic link to edited bytes, or deleted: the early start spawns nothing, the call runs the verified bytes", () => {
    const { root, copy } = calledOnce();
    const elsewhere = path.join(tempDir("al-elsewhere-"), path.basename(copy));
    fs.writeFileSync(elsewhere, edited(copy));
    fs.rmSync(copy);
    fs.symlinkSync(elsewhere, copy);
    const linked = probedCall(root);
    expectVerifiedRan(linked);
    expect(linked.stderr).toMatch(/AL8069: .* was a symbolic link/);
    expect(linked.spawns).toEqual([{ bundleLoaded: true }]);
    // The link was replaced by a regular file of the verified bytes; the file it named is untouched.
    expect(fs.lstatSync(copy).isFile()).toBe(true);
    expect(fs.readFileSync(elsewhere, "utf8")).toContain(MARKER);
    // A link to the very bytes of the copy is no copy either: the runtime writes a file in its place.
    fs.writeFileSync(elsewhere, fs.readFileSync(copy));
    fs.rmSync(copy);
    fs.symlinkSync(elsewhere, copy);
    expectVerifiedRan(probedCall(root));
    expect(fs.lstatSync(copy).isFile()).toBe(true);
    fs.rmSync(copy);
    const deleted = probedCall(root);
    expectVerifiedRan(deleted);
    // A deleted copy is written without a word: .assemblyline/ is safe to delete.
    expect(deleted.stderr).not.toContain("AL8069");
    expect(deleted.spawns).toEqual([{ bundleLoaded: true }]);
    expect(fs.lstatSync(copy).isFile()).toBe(true);
  }, 120_000);
});
