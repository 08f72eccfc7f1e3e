/**
 * What a tool's shell command can leave in the workspace for the host's file work (review of 6
 * December): a named pipe where a file is expected (F4: the host's open blocked for good, and
 * four of them stalled every asynchronous file operation of the host), a sparse file of a
 * gigabyte that costs nothing on disk (F8: `sandbox.readFileBytes` read it whole into the host;
 * `workspace_snapshot` hashed it), and folders nested hundreds of levels deep (F5: one
 * descriptor per level, without limit).
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MAX_FOLDER_DEPTH } from "../../runtime-min/execution/beneath.js";
import { readWorkspaceFile, readWorkspaceFileBytes, SANDBOX_READ_MAX_BYTES } from "../../runtime-min/execution/workspace.js";
import { readArtifactSource } from "../../runtime-min/core-tools/artifact-files.js";
import { deleteTool, editTool, readTool, writeTool } from "../../runtime-min/core-tools/file-tools.js";
import { grepTool } from "../../runtime-min/core-tools/grep.js";
import { listTool, SNAPSHOT_HASH_MAX_BYTES, workspaceInfoTool, workspaceSnapshotTool } from "../../runtime-min/core-tools/list-tools.js";
import type { CoreJson, CoreToolContext } from "../../runtime-min/core-tools/types.js";
import { makeContext, makeDirs, type Sandbox } from "./context.js";

let dirs: Sandbox;
let workspace: string;
let ctx: CoreToolContext;

beforeEach(async () => {
  dirs = await makeDirs();
  workspace = await dirs.workspace("run-root");
  ctx = makeContext(dirs, { workspaceDir: workspace });
});
afterEach(() => dirs.cleanup());

/** `work`, or a rejection naming `what` when it has not settled within 5 s (it would block for good). */
function settles<T>(what: string, work: Promise<T>): Promise<T> {
  return Promise.race([work, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what} did not settle: it blocks`)), 5_000))]);
}

describe.runIf(process.platform === "linux")("entries a shell command leaves in the workspace", () => {
  it("a named pipe where a file is expected: every host read and write refuses it at once", async () => {
    execFileSync("mkfifo", ["pipe", "pipe2", "pipe3", "pipe4", "pipe5"], { cwd: workspace });
    fs.mkdirSync(path.join(workspace, "d"));
    execFileSync("mkfifo", ["d/pipe"], { cwd: workspace });
    const notAFile = { kind: "invalid_input", message: expect.stringMatching(/not a regular file|named pipe/) };
    await expect(settles("read", readTool({ path: "/workspace/pipe" }, ctx))).rejects.toMatchObject(notAFile);
    await expect(settles("edit", editTool({ path: "/workspace/pipe2", oldString: "a", newString: "b" }, ctx))).rejects.toMatchObject(notAFile);
    await expect(settles("write", writeTool({ path: "/workspace/pipe3", content: "x" }, ctx))).rejects.toMatchObject(notAFile);
    await expect(settles("deliver_artifact", readArtifactSource(ctx, "/workspace/pipe4", "deliver_artifact"))).rejects.toMatchObject({ kind: "invalid_input" });
    await expect(settles("sandbox.readFile", readWorkspaceFile(workspace, "pipe5"))).rejects.toThrow(/not a regular file/);
    await expect(settles("sandbox.readFileBytes", readWorkspaceFileBytes(workspace, "d/pipe"))).rejects.toThrow(/not a regular file/);
    // A walk lists it, grep and the snapshot pass it over.
    expect(await settles("grep", grepTool({ pattern: "x", path: "/workspace/d" }, ctx))).toMatchObject({ matches: [], filesSearched: 0 });
    expect(await settles("workspace_snapshot", workspaceSnapshotTool({}, ctx))).toMatchObject({ files: [] });
    expect(await settles("list", listTool({ path: "/workspace/d" }, ctx))).toMatchObject({ entries: [{ path: "/workspace/d/pipe", type: "other" }] });
    // The host's other file work goes on (no thread of the pool is left blocked).
    const unrelated = path.join(dirs.stateDir, "unrelated.txt");
    fs.writeFileSync(unrelated, "fine");
    expect(await settles("unrelated reads", Promise.all(Array.from({ length: 8 }, () => fs.promises.readFile(unrelated, "utf8"))))).toEqual(Array(8).fill("fine"));
  });

  it("a socket where a file is expected: refused as not a regular file, not called a named pipe", async () => {
    // A socket opened for writing fails with ENXIO, as a named pipe without a reader does.
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(path.join(workspace, "sock"), resolve));
    try {
      const notAFile = { kind: "invalid_input", message: expect.stringContaining("is not a regular file (a named pipe with no reader, a socket or a device)") };
      await expect(settles("write", writeTool({ path: "/workspace/sock", content: "x" }, ctx))).rejects.toMatchObject(notAFile);
      await expect(settles("sandbox.readFile", readWorkspaceFile(workspace, "sock"))).rejects.toThrow(/not a regular file/);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("a sparse file over the limits: sandbox reads refuse it before reading, the snapshot lists it unhashed", async () => {
    const big = path.join(workspace, "big");
    fs.closeSync(fs.openSync(big, "w"));
    fs.truncateSync(big, SNAPSHOT_HASH_MAX_BYTES + 1);
    const before = process.memoryUsage().rss;
    await expect(settles("readFileBytes", readWorkspaceFileBytes(workspace, "big"))).rejects.toThrow(`over the ${SANDBOX_READ_MAX_BYTES} bytes (48 MiB) a sandbox file read carries`);
    await expect(settles("readFile", readWorkspaceFile(workspace, "/workspace/big"))).rejects.toThrow(/over the .* bytes \(48 MiB\)/);
    expect(process.memoryUsage().rss - before).toBeLessThan(SANDBOX_READ_MAX_BYTES);
    expect(await settles("workspace_snapshot", workspaceSnapshotTool({}, ctx))).toEqual({ path: "/workspace", files: [{ path: "/workspace/big", size: SNAPSHOT_HASH_MAX_BYTES + 1, sha256: null }], truncated: false });
    await expect(readTool({ path: "big" }, ctx)).rejects.toMatchObject({ kind: "invalid_input", message: expect.stringContaining("over read's 5 MiB limit") });
  });

  it(`folders nested deeper than ${MAX_FOLDER_DEPTH} levels: walks stop there and say so, a recursive delete refuses`, async () => {
    const depth = MAX_FOLDER_DEPTH + 20;
    execFileSync("/bin/sh", ["-c", `i=0; while [ $i -lt ${depth} ]; do mkdir d && cd d || exit 1; i=$((i+1)); done; echo deep > f.txt`], { cwd: path.join(workspace) });
    const open = () => fs.readdirSync("/proc/self/fd").length;
    const before = open();
    const listed = (await listTool({ recursive: true, limit: 100_000 } as CoreJson, ctx)) as { entries: unknown[]; truncated: boolean };
    expect(listed.truncated).toBe(true);
    expect(listed.entries).toHaveLength(MAX_FOLDER_DEPTH);
    expect(await workspaceInfoTool({}, ctx)).toMatchObject({ folders: MAX_FOLDER_DEPTH, files: 0, truncated: true });
    expect(await workspaceSnapshotTool({}, ctx)).toMatchObject({ files: [], truncated: true });
    expect(await grepTool({ pattern: "deep" }, ctx)).toMatchObject({ matches: [] });
    await expect(deleteTool({ path: "/workspace/d", recursive: true } as CoreJson, ctx)).rejects.toMatchObject({ kind: "invalid_input", message: expect.stringContaining(`more than ${MAX_FOLDER_DEPTH} levels deep`) });
    expect(open()).toBe(before);
  });
});
