/**
 * The runtime's own entries in a run's workspace stay out of the tools' listings (README trial
 * of 6 December: `.tmp`, the tools' TMPDIR that the runtime makes at the workspace's root, showed
 * among the tool's files): `list`, `workspace_info`, `workspace_snapshot` and `grep` pass over
 * the root's `.tmp` and an atomic write's `.al-<16 hex>.tmp` temporary; asked for by path, `.tmp`
 * is listed and searched as any folder.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { grepTool } from "../../runtime-min/core-tools/grep.js";
import { listTool, workspaceInfoTool, workspaceSnapshotTool } from "../../runtime-min/core-tools/list-tools.js";
import type { CoreToolContext } from "../../runtime-min/core-tools/types.js";
import { makeContext, makeDirs, type Sandbox } from "./context.js";

let dirs: Sandbox;
let workspace: string;
let ctx: CoreToolContext;

beforeEach(async () => {
  dirs = await makeDirs();
  workspace = await dirs.workspace("run-root");
  ctx = makeContext(dirs, { workspaceDir: workspace });
  await mkdir(path.join(workspace, ".tmp"), { recursive: true });
  await writeFile(path.join(workspace, ".tmp", "scratch.txt"), "TODO scratch");
  await mkdir(path.join(workspace, "sub", ".tmp"), { recursive: true });
  await writeFile(path.join(workspace, "sub", ".tmp", "mine.txt"), "TODO mine");
  await writeFile(path.join(workspace, "sub", ".al-0123456789abcdef.tmp"), "TODO half-written");
  await writeFile(path.join(workspace, ".tmpx"), "TODO a file of the tool");
  await writeFile(path.join(workspace, "a.txt"), "TODO a");
});
afterEach(() => dirs.cleanup());

const paths = (entries: unknown): string[] => (entries as { path: string }[]).map((entry) => entry.path);

describe("the runtime's own entries in the workspace", () => {
  test("list leaves out the root's .tmp and in-flight temporaries, not a tool's own .tmp elsewhere", async () => {
    expect(paths((await listTool({}, ctx)).entries)).toEqual(["/workspace/.tmpx", "/workspace/a.txt", "/workspace/sub"]);
    expect(paths((await listTool({ recursive: true }, ctx)).entries)).toEqual([
      "/workspace/.tmpx", "/workspace/a.txt", "/workspace/sub", "/workspace/sub/.tmp", "/workspace/sub/.tmp/mine.txt",
    ]);
    // Asked for by path, it is a folder like any other.
    expect(paths((await listTool({ path: ".tmp" }, ctx)).entries)).toEqual(["/workspace/.tmp/scratch.txt"]);
  });

  test("workspace_info and workspace_snapshot count and hash the tool's files only", async () => {
    expect(await workspaceInfoTool({}, ctx)).toMatchObject({ files: 3, folders: 2, bytes: "TODO a file of the tool".length + "TODO a".length + "TODO mine".length });
    expect(paths((await workspaceInfoTool({}, ctx)).topLevel)).toEqual(["/workspace/.tmpx", "/workspace/a.txt", "/workspace/sub"]);
    expect(paths((await workspaceSnapshotTool({}, ctx)).files)).toEqual(["/workspace/.tmpx", "/workspace/a.txt", "/workspace/sub/.tmp/mine.txt"]);
  });

  test("grep searches the tool's files only, and .tmp when asked", async () => {
    expect(paths((await grepTool({ pattern: "TODO" }, ctx)).matches)).toEqual(["/workspace/.tmpx", "/workspace/a.txt", "/workspace/sub/.tmp/mine.txt"]);
    expect(paths((await grepTool({ pattern: "TODO", path: "/workspace/.tmp" }, ctx)).matches)).toEqual(["/workspace/.tmp/scratch.txt"]);
  });
});
