/**
 * Issue 12 item 8: what a killed compile or host leaves behind — `.build.old-*` and
 * `.build.tmp-*` folders, `plugins.lock.<n>` temporary files, analysis-cache temporaries,
 * bridge folders of dead hosts — is removed by later runs; only our own names, only when old,
 * never a user's file or a live run's temporary.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { compileAgent } from "../../build/compile.js";
import { removeBridgeFolder, removeStaleBridges } from "../../runtime-min/sandbox/bridge-root.js";
import { copyAgent } from "../helpers/copy-agent.js";
import { supportAgentRoot } from "../helpers/support-agent.js";
import { tempDir } from "../helpers/temp-tree.js";

const HOUR_AGO = (Date.now() - 60 * 60 * 1000) / 1000;

function plant(file: string, old: boolean, folder = false): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  if (folder) {
    fs.mkdirSync(file);
    fs.writeFileSync(path.join(file, "manifest.json"), "{}");
  } else fs.writeFileSync(file, "leftover");
  if (old) fs.utimesSync(file, HOUR_AGO, HOUR_AGO);
}

describe("stale temporaries", () => {
  it("a later compile removes a killed compile's old leftovers and keeps fresh ones and user files", async () => {
    const root = copyAgent(supportAgentRoot);
    const state = path.join(root, ".assemblyline");
    const stale = [
      path.join(root, "plugins.lock.3735928559"),
      path.join(root, "plugins.lock.4242-0badc0de.tmp"),
      path.join(state, ".build.old-0f8fad5b-d9cb-469f-a165-70867728950e"),
      path.join(state, ".build.tmp-Ab12Cd"),
      path.join(state, "cache/analysis.bin.0f8fad5b-d9cb-469f-a165-70867728950e.tmp"),
      path.join(state, "cache/analysis-entries.bin.4242-0badc0de.tmp"),
      path.join(state, "cache/bundles-bytes.bin.4242-0badc0de.tmp"),
    ];
    for (const file of stale) plant(file, true, file.includes(".build."));
    const fresh = path.join(root, "plugins.lock.12345");
    plant(fresh, false);
    const users = [path.join(root, "plugins.lock.backup"), path.join(state, ".build.old-notes"), path.join(state, "cache/analysis-entries.bin.notes.tmp"), path.join(state, "cache/bundles-bytes.bin.notes.tmp")];
    for (const file of users) plant(file, true);

    // Reproduction of the leftovers' fate before: nothing removed them.
    for (const file of stale) expect(fs.existsSync(file)).toBe(true);
    const result = await compileAgent({ root });
    expect(result.ok).toBe(true);
    for (const file of stale) expect(fs.existsSync(file), file).toBe(false);
    expect(fs.existsSync(fresh)).toBe(true);
    for (const file of users) expect(fs.existsSync(file), file).toBe(true);
  }, 60_000);

  it("bridge folders of dead hosts are removed; a live host's and foreign folders stay", () => {
    const bridgeRoot = tempDir("al-bridges-");
    const dead = path.join(bridgeRoot, "999999999-0f8fad5b-d9cb-469f-a165-70867728950e");
    const live = path.join(bridgeRoot, `${process.pid}-1b4e28ba-2fa1-11d2-883f-0016d3cca427`);
    const legacyOld = path.join(bridgeRoot, "6fa459ea-ee8a-3ca4-894e-db77e160355e");
    const foreign = path.join(bridgeRoot, "my-notes");
    for (const dir of [dead, live, legacyOld, foreign]) fs.mkdirSync(dir);
    const twoDaysAgo = (Date.now() - 48 * 3600 * 1000) / 1000;
    fs.utimesSync(legacyOld, twoDaysAgo, twoDaysAgo);
    fs.utimesSync(foreign, twoDaysAgo, twoDaysAgo);
    expect(removeStaleBridges(bridgeRoot)).toEqual([dead, legacyOld].sort());
    expect(fs.readdirSync(bridgeRoot).sort()).toEqual([path.basename(live), "my-notes"].sort());
  });

  it("a bridge folder of a few files and folders goes at once; a full one is moved aside and removed in the background, never on the host's thread (helper-65 B1)", async () => {
    const bridgeRoot = tempDir("al-bridges-");
    const small = path.join(bridgeRoot, `${process.pid}-0f8fad5b-d9cb-469f-a165-70867728950e`);
    fs.mkdirSync(small);
    for (const name of ["h-1.json", ".h-2.json.tmp", "c-1.json"]) fs.writeFileSync(path.join(small, name), "{}");
    // The link guard's table and skeleton (runtime-min/sandbox/link-guard.ts): a few folders more.
    fs.mkdirSync(path.join(small, ".link-guard", "skeleton", "tmp", "agent", "bundles"), { recursive: true });
    fs.writeFileSync(path.join(small, ".link-guard", "fstab"), "");
    fs.writeFileSync(path.join(small, ".link-guard", "skeleton", "tmp", "agent", "bundles", "echo.mjs"), "");
    expect(removeBridgeFolder(small)).toBe(true);
    expect(fs.readdirSync(bridgeRoot)).toEqual([]);
    // What a hostile tool leaves: thousands of files in a sub-folder.
    const full = path.join(bridgeRoot, `${process.pid}-1b4e28ba-2fa1-11d2-883f-0016d3cca427`);
    fs.mkdirSync(path.join(full, "z"), { recursive: true });
    for (let i = 0; i < 3000; i++) fs.writeFileSync(path.join(full, "z", `n${i}`), "");
    expect(removeBridgeFolder(full)).toBe(true);
    expect(fs.existsSync(full)).toBe(false);
    const aside = fs.readdirSync(bridgeRoot);
    expect(aside).toEqual([expect.stringMatching(new RegExp(`^\\.trash-${process.pid}-[0-9a-f-]{36}$`))]);
    for (let waited = 0; fs.readdirSync(bridgeRoot).length > 0 && waited < 30_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(fs.readdirSync(bridgeRoot)).toEqual([]);
    // A dead host's folder moved aside is the sweep's too.
    const deadTrash = path.join(bridgeRoot, ".trash-999999999-6fa459ea-ee8a-3ca4-894e-db77e160355e");
    fs.mkdirSync(path.join(deadTrash, "z"), { recursive: true });
    expect(removeStaleBridges(bridgeRoot)).toEqual([deadTrash]);
  });
});
