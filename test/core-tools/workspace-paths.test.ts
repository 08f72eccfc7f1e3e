import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { ToolCallError } from "../../runtime-min/failures.js";
import { readTool, writeTool, editTool, deleteTool } from "../../runtime-min/core-tools/file-tools.js";
import { listTool } from "../../runtime-min/core-tools/list-tools.js";
import { grepTool } from "../../runtime-min/core-tools/grep.js";
import { resolveWorkspacePath, toWorkspaceRelative } from "../../runtime-min/core-tools/workspace-paths.js";
import { makeContext, makeDirs, type Sandbox } from "./context.js";

let dirs: Sandbox;
let workspace: string;

beforeEach(async () => {
  dirs = await makeDirs();
  workspace = await dirs.workspace("run-root");
  await writeFile(path.join(dirs.outside, "secret.txt"), "top secret\n");
  await mkdir(path.join(workspace, "docs"));
  await writeFile(path.join(workspace, "docs", "a.txt"), "hello\n");
});
afterEach(() => dirs.cleanup());

describe("toWorkspaceRelative", () => {
  test.each([
    ["/workspace", ""],
    ["/workspace/", ""],
    ["/workspace/docs/a.txt", "docs/a.txt"],
    ["docs/a.txt", "docs/a.txt"],
    ["./docs//a.txt", "docs/a.txt"],
    ["docs/../docs/a.txt", "docs/a.txt"],
    ["/workspace/docs/", "docs"],
  ])("%s → %j", (input, relative) => {
    expect(toWorkspaceRelative(input)).toBe(relative);
  });

  test.each([
    ["../secret.txt", /climbs out of \/workspace/],
    ["docs/../../x", /climbs out/],
    ["/workspace/../outside/secret.txt", /climbs out/],
    ["/etc/passwd", /absolute paths must be inside \/workspace/],
    ["/workspace2/x", /absolute paths must be inside/],
    ["docs\\a.txt", /backslash/],
    ["a\0b", /NUL/],
    ["", /empty/],
  ])("refuses %j", (input, message) => {
    let caught: unknown;
    try {
      toWorkspaceRelative(input);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ToolCallError);
    expect((caught as ToolCallError).kind).toBe("invalid_input");
    expect((caught as ToolCallError).message).toMatch(message);
    expect((caught as ToolCallError).message).toContain(`"${input}"`);
  });
});

describe("symlinks", () => {
  test("a symlinked folder pointing outside is refused for read, write, list and grep", async () => {
    await symlink(dirs.outside, path.join(workspace, "escape"));
    const ctx = makeContext(dirs, { workspaceDir: workspace });
    const refused = { kind: "invalid_input", message: expect.stringMatching(/"\/workspace\/escape.*" is refused: it resolves through a symlink to a location outside \/workspace/) };
    await expect(readTool({ path: "/workspace/escape/secret.txt" }, ctx)).rejects.toMatchObject(refused);
    await expect(writeTool({ path: "/workspace/escape/new.txt", content: "x" }, ctx)).rejects.toMatchObject(refused);
    await expect(listTool({ path: "/workspace/escape" }, ctx)).rejects.toMatchObject(refused);
    await expect(grepTool({ pattern: "secret", path: "/workspace/escape" }, ctx)).rejects.toMatchObject(refused);
    await expect(readFile(path.join(dirs.outside, "new.txt"))).rejects.toThrow(/ENOENT/);
  });

  test("a symlinked file pointing outside is refused for read and edit", async () => {
    await symlink(path.join(dirs.outside, "secret.txt"), path.join(workspace, "link.txt"));
    const ctx = makeContext(dirs, { workspaceDir: workspace });
    await expect(readTool({ path: "link.txt" }, ctx)).rejects.toMatchObject({ kind: "invalid_input", message: expect.stringContaining("outside /workspace") });
    await expect(editTool({ path: "link.txt", oldString: "top", newString: "no" }, ctx)).rejects.toMatchObject({ kind: "invalid_input" });
    expect(await readFile(path.join(dirs.outside, "secret.txt"), "utf8")).toBe("top secret\n");
  });

  test("a dangling symlink is refused (writing through it could create a file outside)", async () => {
    await symlink(path.join(dirs.outside, "planted.txt"), path.join(workspace, "dangling.txt"));
    const ctx = makeContext(dirs, { workspaceDir: workspace });
    await expect(writeTool({ path: "dangling.txt", content: "x" }, ctx)).rejects.toMatchObject({ kind: "invalid_input", message: expect.stringContaining("does not exist") });
    await expect(readFile(path.join(dirs.outside, "planted.txt"))).rejects.toThrow(/ENOENT/);
  });

  test("a symlink that stays inside the workspace works", async () => {
    await symlink(path.join(workspace, "docs"), path.join(workspace, "alias"));
    const resolved = await resolveWorkspacePath(workspace, "/workspace/alias/a.txt");
    expect(resolved).toMatchObject({ workspacePath: "/workspace/alias/a.txt", relative: "alias/a.txt", hostRelative: "docs/a.txt", exists: true });
    const ctx = makeContext(dirs, { workspaceDir: workspace });
    expect(await readTool({ path: "alias/a.txt" }, ctx)).toMatchObject({ content: "hello" });
  });

  test("delete removes a symlink itself, never its target outside", async () => {
    await symlink(path.join(dirs.outside, "secret.txt"), path.join(workspace, "link.txt"));
    const ctx = makeContext(dirs, { workspaceDir: workspace });
    expect(await deleteTool({ path: "/workspace/link.txt" }, ctx)).toEqual({ path: "/workspace/link.txt", deleted: "symlink" });
    expect(await readFile(path.join(dirs.outside, "secret.txt"), "utf8")).toBe("top secret\n");
  });

  test("delete refuses to go through a symlinked folder that points outside", async () => {
    await symlink(dirs.outside, path.join(workspace, "escape"));
    const ctx = makeContext(dirs, { workspaceDir: workspace });
    await expect(deleteTool({ path: "escape/secret.txt" }, ctx)).rejects.toMatchObject({ kind: "invalid_input" });
    expect(await readFile(path.join(dirs.outside, "secret.txt"), "utf8")).toBe("top secret\n");
  });
});
