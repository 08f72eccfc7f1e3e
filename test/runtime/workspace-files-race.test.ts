/**
 * The host's side of `ctx.getSandbox()` file exchange (`readWorkspaceFile`,
 * `readWorkspaceFileBytes`, `writeWorkspaceFile` in runtime-min/execution/workspace.ts) never
 * follows a link in the workspace, not even one swapped in between a check and the open
 * (review of 5 December, N2: a tool's unawaited shell loop that kept making and removing
 * `x -> .assemblyline` and `y -> <outside>` got `state.db` back and a file written outside
 * the root). Here the loop is a host-side child process doing the same, racing the functions.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readWorkspaceFile, readWorkspaceFileBytes, writeWorkspaceFile } from "../../runtime-min/execution/workspace.js";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  made.push(dir);
  return dir;
}

describe.runIf(process.platform === "linux")("the host's workspace file exchange", () => {
  it("refuses a path through any symbolic link, inside the workspace or out", async () => {
    const workspace = tempDir("al-ws-");
    const outside = tempDir("al-out-");
    fs.writeFileSync(path.join(outside, "secret.txt"), "secret");
    fs.mkdirSync(path.join(workspace, "real"));
    fs.writeFileSync(path.join(workspace, "real", "a.txt"), "a");
    fs.symlinkSync(outside, path.join(workspace, "out"));
    fs.symlinkSync(path.join(workspace, "real"), path.join(workspace, "in"));
    fs.symlinkSync(path.join(outside, "secret.txt"), path.join(workspace, "file-link"));
    for (const requested of ["out/secret.txt", "in/a.txt", "file-link", "/workspace/out/secret.txt"]) {
      await expect(readWorkspaceFile(workspace, requested), requested).rejects.toThrow(/symbolic link/);
    }
    await expect(writeWorkspaceFile(workspace, "out/new.txt", "x")).rejects.toThrow(/symbolic link/);
    await expect(writeWorkspaceFile(workspace, "out/deeper/new.txt", "x")).rejects.toThrow(/symbolic link/);
    expect(fs.readdirSync(outside)).toEqual(["secret.txt"]);
    // A link as the last part of a write is replaced, never written through.
    await writeWorkspaceFile(workspace, "file-link", "mine");
    expect(fs.lstatSync(path.join(workspace, "file-link")).isFile()).toBe(true);
    expect(fs.readFileSync(path.join(outside, "secret.txt"), "utf8")).toBe("secret");
    // Plain files and folders work, folders made on the way.
    await writeWorkspaceFile(workspace, "/workspace/made/deep/b.txt", new Uint8Array([1, 2, 3]));
    expect([...(await readWorkspaceFileBytes(workspace, "made/deep/b.txt"))]).toEqual([1, 2, 3]);
    expect(await readWorkspaceFile(workspace, "real/a.txt")).toBe("a");
    await expect(readWorkspaceFile(workspace, "../secret.txt")).rejects.toThrow(/outside the run's workspace/);
    await expect(readWorkspaceFile(workspace, "../secret.txt")).rejects.toMatchObject({ code: "EACCES" });
  });

  // New-user trial E6: a missing file's error named the host's descriptor path
  // (`ENOENT: …, open '/proc/self/fd/23/nope.txt'`), which the tool passed on to the model.
  it("says what is missing in the tool's own path, never the host's descriptor path", async () => {
    const workspace = tempDir("al-ws-");
    fs.mkdirSync(path.join(workspace, "sub"));
    for (const requested of ["nope.txt", "/workspace/nope.txt", "sub/nope.txt"]) {
      const error = await readWorkspaceFile(workspace, requested).then(() => undefined, (e: unknown) => e as Error);
      expect(error?.message, requested).toBe(`The file '${requested}' does not exist in the workspace.`);
      expect((error as NodeJS.ErrnoException | undefined)?.code, requested).toBe("ENOENT");
    }
    const deeper = await readWorkspaceFileBytes(workspace, "none/deeper.txt").then(() => undefined, (e: unknown) => e as Error);
    expect(deeper?.message).toBe("The file 'none/deeper.txt' does not exist in the workspace.");
    expect(deeper?.message).not.toContain("/proc/");
  });

  it("never reads or writes through a link swapped in while it works (review N2)", async () => {
    const workspace = tempDir("al-ws-");
    const state = tempDir("al-state-");
    const outside = tempDir("al-out-");
    fs.writeFileSync(path.join(state, "state.db"), "SQLite format 3");
    // The swapper runs until the attempts are done (a fixed count, not a time: a loaded machine makes fewer per second).
    // One process that starts no other: once it has exited nothing touches the workspace, so the
    // clean-up cannot race a last `mkdir` (a shell loop's `ln`/`rm`/`mkdir` children outlived the
    // killed shell and made `rmdir` fail with ENOTEMPTY on a loaded machine, 6 December).
    const script = `const fs = require("node:fs");
for (;;) {
  try { fs.symlinkSync(${JSON.stringify(state)}, "x"); } catch {}
  try { fs.symlinkSync(${JSON.stringify(outside)}, "y"); } catch {}
  for (const name of ["x", "y"]) fs.rmSync(name, { recursive: true, force: true });
  for (const name of ["x", "y"]) fs.mkdirSync(name, { recursive: true });
  for (const name of ["x", "y"]) fs.rmSync(name, { recursive: true, force: true });
}`;
    const swapper = spawn(process.execPath, ["-e", script], { cwd: workspace, stdio: "ignore" });
    const ended = new Promise((resolve) => swapper.on("exit", resolve));
    let hits = 0;
    let attempts = 0;
    for (; attempts < 400; attempts += 1) {
      try {
        if ((await readWorkspaceFile(workspace, "x/state.db")).startsWith("SQLite")) hits += 1;
      } catch {
        // Refused or missing: as it should be.
      }
      try {
        await writeWorkspaceFile(workspace, "y/PWNED.txt", "race");
      } catch {
        // Refused: as it should be.
      }
    }
    swapper.kill("SIGKILL");
    await ended;
    expect(hits).toBe(0);
    expect(fs.readdirSync(outside)).toEqual([]);
  }, 30_000);

  it("refuses a path deeper than 256 folder levels or longer than 4096 bytes before opening anything (helper-65 D1: 40,000 levels held the host's thread 48 s)", async () => {
    const workspace = tempDir("al-ws-");
    await expect(writeWorkspaceFile(workspace, `${"a/".repeat(40_000)}f.txt`, "deep")).rejects.toThrow(/is too long: at most 256 folder levels and 4096 bytes in all/);
    await expect(readWorkspaceFile(workspace, `${"a/".repeat(300)}f.txt`)).rejects.toThrow(/is too long/);
    await expect(readWorkspaceFileBytes(workspace, `${"b".repeat(5000)}.txt`)).rejects.toThrow(/is too long/);
    expect(fs.readdirSync(workspace)).toEqual([]);
    // 255 levels are fine.
    await writeWorkspaceFile(workspace, `${"a/".repeat(255)}f.txt`, "deep");
    expect(await readWorkspaceFile(workspace, `${"a/".repeat(255)}f.txt`)).toBe("deep");
  });

  it("a write onto a folder fails saying so and leaves no temporary; a long file name writes (helper-65 E2)", async () => {
    const workspace = tempDir("al-ws-");
    fs.mkdirSync(path.join(workspace, "d"));
    fs.writeFileSync(path.join(workspace, "d", "kept.txt"), "kept");
    await expect(writeWorkspaceFile(workspace, "d", "x")).rejects.toThrow("The path 'd' is a folder, not a file.");
    expect(fs.readdirSync(workspace)).toEqual(["d"]);
    const long = "n".repeat(250);
    await writeWorkspaceFile(workspace, long, "long");
    expect(fs.readFileSync(path.join(workspace, long), "utf8")).toBe("long");
  });
});
