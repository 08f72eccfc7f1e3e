/**
 * Built-ins stop their work when their call ends (`CoreToolContext.signal`; helper-65's review,
 * C2: a `workspace_snapshot` past its deadline went on hashing gigabytes, the call and the run
 * long over). Each test would resolve, or hang until the test's timeout, if the tool ignored the
 * signal: none measures time.
 */
import { mkdir, open, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { grepTool } from "../../runtime-min/core-tools/grep.js";
import { listTool, workspaceInfoTool, workspaceSnapshotTool } from "../../runtime-min/core-tools/list-tools.js";
import { makeContext, makeDirs, type Sandbox } from "./context.js";

let dirs: Sandbox;
let workspace: string;

beforeEach(async () => {
  dirs = await makeDirs();
  workspace = await dirs.workspace("run-cancel");
  await mkdir(path.join(workspace, "notes"), { recursive: true });
  for (const name of ["a.txt", "b.txt", "notes/c.txt"]) await writeFile(path.join(workspace, name), `text of ${name}\n`);
});

afterEach(async () => {
  await dirs.cleanup();
});

/** A sparse file of `bytes` (nothing on disk; hashing it reads zeros for seconds). */
async function sparseFile(name: string, bytes: number): Promise<void> {
  const handle = await open(path.join(workspace, name), "w");
  await handle.truncate(bytes);
  await handle.close();
}

describe("a built-in whose call has already ended does nothing", () => {
  const ended = (): AbortSignal => AbortSignal.abort(new Error("the call has ended"));

  test.each([
    ["list", listTool],
    ["workspace_info", workspaceInfoTool],
    ["workspace_snapshot", workspaceSnapshotTool],
  ])("%s rejects with the signal's reason instead of walking", async (_name, tool) => {
    const signal = ended();
    const ctx = makeContext(dirs, { workspaceDir: workspace, signal });
    await expect(tool({ recursive: true }, ctx)).rejects.toBe(signal.reason);
  });

  test("grep starts no worker", async () => {
    const signal = ended();
    const ctx = makeContext(dirs, { workspaceDir: workspace, signal });
    await expect(grepTool({ pattern: "text" }, ctx)).rejects.toBe(signal.reason);
  });

  test("without a signal (a context a caller builds itself) the tools work as before", async () => {
    const ctx = makeContext(dirs, { workspaceDir: workspace });
    const snapshot = (await workspaceSnapshotTool({}, ctx)) as { files: { path: string }[] };
    expect(snapshot.files.map((file) => file.path)).toEqual(["/workspace/a.txt", "/workspace/b.txt", "/workspace/notes/c.txt"]);
  });
});

describe("a built-in stops when its call ends while it works", () => {
  test("workspace_snapshot stops hashing a large file", async () => {
    // Just under the snapshot's 1 GiB budget, so it is hashed: seconds of reading zeros on this
    // machine. The call ends 100 ms in.
    await sparseFile("big.bin", 1024 * 1024 * 1024 - 4096);
    const controller = new AbortController();
    const ctx = makeContext(dirs, { workspaceDir: workspace, signal: controller.signal });
    const snapshot = workspaceSnapshotTool({}, ctx);
    setTimeout(() => controller.abort(new Error("deadline passed")), 100);
    await expect(snapshot).rejects.toThrow("deadline passed");
  }, 30_000);

  test("grep terminates its worker on a pattern that backtracks for minutes", async () => {
    await writeFile(path.join(workspace, "slow.txt"), `${"a".repeat(40)}!\n`);
    const controller = new AbortController();
    const ctx = makeContext(dirs, { workspaceDir: workspace, signal: controller.signal });
    // The tool's own timeout (the test seam) is 10 minutes: only the signal can end it here.
    const searched = grepTool({ pattern: "^(a+)+$", path: "/workspace/slow.txt" }, ctx, 600_000);
    setTimeout(() => controller.abort(new Error("cancelled by the host")), 200);
    await expect(searched).rejects.toThrow("cancelled by the host");
  }, 30_000);
});
