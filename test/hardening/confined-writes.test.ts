/**
 * Issue 12 items 4 and 7: `compile` and the runtime never write through a symbolic or hard link
 * out of the agent root, and odd tree shapes (`.assemblyline` as a file) are diagnostics, not
 * crashes. Each case reproduces a break of the issue: a symlinked `plugins.lock` that replaced
 * the file it pointed to, a symlinked `.assemblyline/` whose cache was overwritten, and
 * `.assemblyline` as a plain file that crashed with AL9002.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { compileAgent } from "../../build/compile.js";
import { openRuntime } from "../../runtime-min/index.js";
import { checkWriteTarget } from "../../common/confined-write.js";
import { chooseBridgeRoot } from "../../runtime-min/sandbox/bridge-root.js";
import { copyAgent } from "../helpers/copy-agent.js";
import { supportAgentRoot } from "../helpers/support-agent.js";
import { tempDir } from "../helpers/temp-tree.js";

let lockText: string;

beforeAll(async () => {
  const root = copyAgent(supportAgentRoot);
  const result = await compileAgent({ root });
  expect(result.ok).toBe(true);
  lockText = fs.readFileSync(path.join(root, "plugins.lock"), "utf8");
}, 120_000);

/** A copy of the support agent with its lock, and a victim file outside it. */
function prepare(): { root: string; victim: string } {
  const root = copyAgent(supportAgentRoot);
  fs.writeFileSync(path.join(root, "plugins.lock"), lockText.replace('"lockfileVersion": 1', '"lockfileVersion": 1, "stale": true'));
  const victim = path.join(tempDir("al-victim-"), "victim.txt");
  fs.writeFileSync(victim, "precious\n");
  return { root, victim };
}

const codes = (diagnostics: readonly { code: string }[]) => diagnostics.map((d) => d.code);

describe("writes never follow a link out of the agent root", () => {
  it("a symlinked plugins.lock is left alone, and so is the file it points to (AL6301); nothing is written", async () => {
    const { root, victim } = prepare();
    fs.rmSync(path.join(root, "plugins.lock"));
    fs.symlinkSync(victim, path.join(root, "plugins.lock"));
    const result = await compileAgent({ root });
    expect(result.ok).toBe(false);
    const refused = result.diagnostics.find((d) => d.code === "AL6301");
    expect(refused?.message).toContain("plugins.lock was not written: plugins.lock is a symbolic link to");
    expect(fs.readFileSync(victim, "utf8")).toBe("precious\n");
    expect(fs.lstatSync(path.join(root, "plugins.lock")).isSymbolicLink()).toBe(true);
    // The artifact was not written either: the lock is checked first.
    expect(fs.existsSync(path.join(root, ".assemblyline/build"))).toBe(false);
  }, 60_000);

  it("a plugins.lock with a second hard link is refused (AL6301)", async () => {
    const { root, victim } = prepare();
    fs.rmSync(path.join(root, "plugins.lock"));
    fs.linkSync(victim, path.join(root, "plugins.lock"));
    const result = await compileAgent({ root });
    expect(result.diagnostics.find((d) => d.code === "AL6301")?.message).toContain("has 2 hard links");
    expect(fs.readFileSync(victim, "utf8")).toBe("precious\n");
  }, 60_000);

  it("an analysis cache with a second hard link outside the root is neither appended to nor replaced (warning AL6301); the compile succeeds", async () => {
    const { root } = prepare();
    expect((await compileAgent({ root, package: false })).ok).toBe(true);
    const cache = path.join(root, ".assemblyline/cache/analysis.bin");
    const outside = path.join(tempDir("al-outside-"), "analysis.bin");
    fs.linkSync(cache, outside);
    const before = fs.readFileSync(outside);
    // A changed definition changes the cache: the next save would append a segment to the file's bytes.
    const echo = path.join(root, "plugins/example/ai.assemblyline/echo.ts");
    fs.appendFileSync(echo, "// changed\n");
    const result = await compileAgent({ root, package: false });
    expect(result.ok).toBe(true);
    const refusal = result.diagnostics.find((d) => d.code === "AL6301");
    expect(refusal?.severity).toBe("warning");
    expect(refusal?.message).toContain("has 2 hard links");
    expect(fs.readFileSync(outside).equals(before)).toBe(true);
    expect(fs.statSync(cache).ino).toBe(fs.statSync(outside).ino);
  }, 60_000);

  it("a symlinked .assemblyline pointing outside the root gets neither cache nor artifact (AL6301)", async () => {
    const { root } = prepare();
    const outside = tempDir("al-outside-");
    fs.symlinkSync(outside, path.join(root, ".assemblyline"));
    const result = await compileAgent({ root });
    expect(result.ok).toBe(false);
    expect(codes(result.diagnostics)).toContain("AL6301");
    expect(fs.readdirSync(outside)).toEqual([]);
    await expect(openRuntime({ root })).rejects.toMatchObject({ code: "AL6301" });
    expect(fs.readdirSync(outside)).toEqual([]);
  }, 60_000);

  it("a symlinked .assemblyline/runs pointing outside the root gets no run workspace (AL6301, located relative to the root); nothing is written there", async () => {
    const { root } = prepare();
    expect((await compileAgent({ root })).ok).toBe(true);
    const outside = tempDir("al-outside-runs-");
    fs.rmSync(path.join(root, ".assemblyline/runs"), { recursive: true, force: true });
    fs.symlinkSync(outside, path.join(root, ".assemblyline/runs"));
    const runtime = await openRuntime({ root });
    try {
      await expect(runtime.call({ tool: "echo", input: { message: "hi" }, runId: "r1" })).rejects.toMatchObject({
        code: "AL6301",
        diagnostics: [expect.objectContaining({ file: ".assemblyline/runs", message: expect.stringContaining("is a symbolic link to") })],
      });
    } finally {
      await runtime.close();
    }
    expect(fs.readdirSync(outside)).toEqual([]);
    // The runtime's own state refusals are located relative to the root too.
    fs.rmSync(path.join(root, ".assemblyline/state.db"), { force: true });
    fs.mkdirSync(path.join(root, ".assemblyline/state.db"));
    await expect(openRuntime({ root })).rejects.toMatchObject({ code: "AL6302", diagnostics: [expect.objectContaining({ file: ".assemblyline/state.db" })] });
  }, 60_000);

  it("a run's folders below .assemblyline are never links, not even to a place inside the root (review F1: a planted runs/<id>/workspace -> ../.. made the state directory a tool's workspace)", async () => {
    const { root } = prepare();
    expect((await compileAgent({ root })).ok).toBe(true);
    const state = path.join(root, ".assemblyline");
    const planted = [
      { run: "ws-to-state", link: "runs/ws-to-state/workspace", target: "../.." },
      { run: "ws-to-plugins", link: "runs/ws-to-plugins/workspace", target: "../../../plugins" },
      { run: "run-to-runs", link: "runs/run-to-runs", target: "." },
      { run: "tmp-to-state", link: "runs/tmp-to-state/workspace/.tmp", target: "../../.." },
    ];
    const runtime = await openRuntime({ root });
    try {
      for (const { run, link, target } of planted) {
        fs.mkdirSync(path.dirname(path.join(state, link)), { recursive: true });
        fs.symlinkSync(target, path.join(state, link));
        await expect(runtime.call({ tool: "echo", input: { message: "hi" }, runId: run }), link).rejects.toMatchObject({
          code: "AL6301",
          diagnostics: [expect.objectContaining({ file: `.assemblyline/${link}`, message: expect.stringContaining("is a symbolic link") })],
        });
      }
    } finally {
      await runtime.close();
    }
    // Nothing was made through the links: no .tmp beside state.db, none in plugins/.
    expect(fs.existsSync(path.join(state, ".tmp"))).toBe(false);
    expect(fs.existsSync(path.join(root, "plugins", ".tmp"))).toBe(false);
  }, 60_000);

  it("the sandbox bridge's fallback folder is never made through a link (review F4: no /dev/shm and no $XDG_RUNTIME_DIR, as on macOS)", () => {
    const root = tempDir();
    const state = path.join(root, ".assemblyline");
    fs.mkdirSync(state);
    const noSharedMemory = path.join(root, "no-such-shm");
    const outside = tempDir("al-outside-bridge-");
    fs.symlinkSync(outside, path.join(state, "bridge"));
    expect(chooseBridgeRoot(state, {}, noSharedMemory)).toMatchObject({ kind: "link", path: path.join(state, "bridge"), reason: expect.stringContaining(outside) });
    // A link inside the root is refused too: the sandbox process writes in the folder.
    fs.rmSync(path.join(state, "bridge"));
    fs.mkdirSync(path.join(root, "elsewhere"));
    fs.symlinkSync(path.join(root, "elsewhere"), path.join(state, "bridge"));
    expect(chooseBridgeRoot(state, {}, noSharedMemory)).toMatchObject({ kind: "link", reason: expect.stringContaining("never one") });
    expect(fs.readdirSync(outside)).toEqual([]);
    // A plain folder is the fallback, made private.
    fs.rmSync(path.join(state, "bridge"));
    expect(chooseBridgeRoot(state, {}, noSharedMemory)).toBe(path.join(state, "bridge"));
    expect(fs.statSync(path.join(state, "bridge")).mode & 0o777).toBe(0o700);
  });

  it("a link that stays inside the root is followed as before", () => {
    const root = tempDir();
    fs.mkdirSync(path.join(root, "real-state"));
    fs.symlinkSync(path.join(root, "real-state"), path.join(root, ".assemblyline"));
    expect(checkWriteTarget(root, path.join(root, ".assemblyline/cache/analysis.bin"))).toBeUndefined();
  });
});

describe("no internal error for any file-system shape", () => {
  it(".assemblyline as a plain file: compile reports AL6302 instead of crashing (was AL9002 and a stack trace)", async () => {
    const { root } = prepare();
    fs.writeFileSync(path.join(root, ".assemblyline"), "not a folder\n");
    const result = await compileAgent({ root });
    expect(result.ok).toBe(false);
    expect(codes(result.diagnostics)).not.toContain("AL9002");
    const shape = result.diagnostics.find((d) => d.code === "AL6302");
    expect(shape?.message).toContain(".assemblyline is a file where a folder is expected");
    await expect(openRuntime({ root })).rejects.toMatchObject({ code: "AL6302" });
  }, 60_000);

  it("the cache folder as a file only costs the cache (warning AL6302); the compile succeeds", async () => {
    const { root } = prepare();
    fs.mkdirSync(path.join(root, ".assemblyline"));
    fs.writeFileSync(path.join(root, ".assemblyline/cache"), "");
    const result = await compileAgent({ root });
    expect(result.ok).toBe(true);
    expect(result.diagnostics.filter((d) => d.code === "AL6302").map((d) => d.severity)).toEqual(["warning"]);
  }, 60_000);

  it("plugins.lock as a folder is AL6302, not a crash", async () => {
    const { root } = prepare();
    fs.rmSync(path.join(root, "plugins.lock"));
    fs.mkdirSync(path.join(root, "plugins.lock"));
    const result = await compileAgent({ root });
    expect(result.ok).toBe(false);
    expect(codes(result.diagnostics)).not.toContain("AL9002");
  }, 60_000);
});
