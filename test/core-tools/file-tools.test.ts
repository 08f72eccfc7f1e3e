import { mkdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { deleteTool, editTool, readTool, writeTool } from "../../runtime-min/core-tools/file-tools.js";
import { grepTool } from "../../runtime-min/core-tools/grep.js";
import { compileGlob } from "../../runtime-min/core-tools/glob.js";
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
});
afterEach(() => dirs.cleanup());

describe("write and read", () => {
  test("write creates parent folders; read returns lines with paging", async () => {
    expect(await writeTool({ path: "/workspace/notes/todo.md", content: "one\ntwo\nthree\n" }, ctx)).toEqual({ path: "/workspace/notes/todo.md", size: 14, created: true });
    expect(await readFile(path.join(workspace, "notes", "todo.md"), "utf8")).toBe("one\ntwo\nthree\n");
    expect(await readTool({ path: "notes/todo.md" }, ctx)).toEqual({ path: "/workspace/notes/todo.md", size: 14, content: "one\ntwo\nthree", startLine: 1, endLine: 3, totalLines: 3, truncated: false });
    expect(await readTool({ path: "notes/todo.md", offset: 2, limit: 1 }, ctx)).toMatchObject({ content: "two", startLine: 2, endLine: 2, truncated: true });
    expect(await writeTool({ path: "notes/todo.md", content: "x" }, ctx)).toMatchObject({ created: false });
  });

  test("binary content round-trips through base64", async () => {
    const bytes = Buffer.from([0, 1, 2, 255, 254]);
    await writeTool({ path: "bin/data.bin", content: bytes.toString("base64"), encoding: "base64" }, ctx);
    expect(await readFile(path.join(workspace, "bin", "data.bin"))).toEqual(bytes);
    expect(await readTool({ path: "bin/data.bin", encoding: "base64" }, ctx)).toEqual({ path: "/workspace/bin/data.bin", size: 5, encoding: "base64", content: bytes.toString("base64") });
    await expect(readTool({ path: "bin/data.bin" }, ctx)).rejects.toMatchObject({ kind: "invalid_input", message: expect.stringContaining('encoding "base64"') });
    await expect(writeTool({ path: "bad.bin", content: "not base64!", encoding: "base64" }, ctx)).rejects.toMatchObject({ kind: "invalid_input" });
  });

  test("missing files, folders and the root are invalid_input naming the path", async () => {
    await mkdir(path.join(workspace, "dir"));
    await expect(readTool({ path: "nope.txt" }, ctx)).rejects.toMatchObject({ kind: "invalid_input", message: "/workspace/nope.txt: no such file or folder." });
    await expect(readTool({ path: "dir" }, ctx)).rejects.toMatchObject({ kind: "invalid_input", message: expect.stringContaining("/workspace/dir is a folder") });
    await expect(writeTool({ path: "dir", content: "x" }, ctx)).rejects.toMatchObject({ kind: "invalid_input" });
    await expect(writeTool({ path: "/workspace", content: "x" }, ctx)).rejects.toMatchObject({ kind: "invalid_input" });
    await expect(readTool({ path: "dir/x", offset: 5 }, ctx)).rejects.toMatchObject({ kind: "invalid_input" });
  });
});

describe("edit", () => {
  beforeEach(async () => {
    await writeFile(path.join(workspace, "code.ts"), "const a = 1;\nconst b = 1;\nlet c = 2;\n");
  });

  test("replaces exactly one occurrence, keeping $ patterns literal", async () => {
    expect(await editTool({ path: "code.ts", oldString: "let c = 2;", newString: "let c = '$&';" }, ctx)).toEqual({ path: "/workspace/code.ts", replacements: 1 });
    expect(await readFile(path.join(workspace, "code.ts"), "utf8")).toBe("const a = 1;\nconst b = 1;\nlet c = '$&';\n");
  });

  test("refuses an ambiguous or missing oldString, and replaces all when asked", async () => {
    await expect(editTool({ path: "code.ts", oldString: " = 1;", newString: " = 3;" }, ctx)).rejects.toMatchObject({ kind: "invalid_input", message: expect.stringContaining("occurs 2 times") });
    await expect(editTool({ path: "code.ts", oldString: "missing", newString: "x" }, ctx)).rejects.toMatchObject({ kind: "invalid_input", message: expect.stringContaining("was not found in /workspace/code.ts") });
    await expect(editTool({ path: "code.ts", oldString: "a", newString: "a" }, ctx)).rejects.toMatchObject({ kind: "invalid_input" });
    expect(await editTool({ path: "code.ts", oldString: " = 1;", newString: " = 3;", replaceAll: true }, ctx)).toMatchObject({ replacements: 2 });
    expect(await readFile(path.join(workspace, "code.ts"), "utf8")).toBe("const a = 3;\nconst b = 3;\nlet c = 2;\n");
  });
});

describe("delete", () => {
  test("files, empty folders, and non-empty folders only with recursive", async () => {
    await mkdir(path.join(workspace, "tree", "leaf"), { recursive: true });
    await writeFile(path.join(workspace, "tree", "leaf", "f.txt"), "x");
    await writeFile(path.join(workspace, "f.txt"), "x");
    expect(await deleteTool({ path: "f.txt" }, ctx)).toEqual({ path: "/workspace/f.txt", deleted: "file" });
    await expect(deleteTool({ path: "tree" }, ctx)).rejects.toMatchObject({ kind: "invalid_input", message: expect.stringContaining("recursive: true") });
    expect(await deleteTool({ path: "tree", recursive: true }, ctx)).toEqual({ path: "/workspace/tree", deleted: "folder" });
    await expect(stat(path.join(workspace, "tree"))).rejects.toThrow(/ENOENT/);
    await expect(deleteTool({ path: "/workspace" }, ctx)).rejects.toMatchObject({ kind: "invalid_input", message: expect.stringContaining("/workspace itself") });
    await expect(deleteTool({ path: "../x" }, ctx)).rejects.toMatchObject({ kind: "invalid_input" });
    await expect(deleteTool({ path: "gone.txt" }, ctx)).rejects.toMatchObject({ kind: "invalid_input", message: expect.stringContaining("no such file") });
  });
});

describe("list and the workspace tools", () => {
  beforeEach(async () => {
    await mkdir(path.join(workspace, "b", "inner"), { recursive: true });
    await writeFile(path.join(workspace, "b", "inner", "deep.txt"), "deep");
    await writeFile(path.join(workspace, "a.txt"), "aaa");
    await writeFile(path.join(workspace, "B.txt"), "B");
    await symlink(path.join(workspace, "b"), path.join(workspace, "c-link"));
  });

  test("list is sorted by code units, depth-first, and never follows symlinks", async () => {
    expect(await listTool({}, ctx)).toEqual({
      path: "/workspace",
      entries: [
        { path: "/workspace/B.txt", type: "file", size: 1 },
        { path: "/workspace/a.txt", type: "file", size: 3 },
        { path: "/workspace/b", type: "folder" },
        { path: "/workspace/c-link", type: "symlink" },
      ],
      truncated: false,
    });
    const recursive = await listTool({ recursive: true }, ctx);
    expect((recursive.entries as { path: string }[]).map((entry) => entry.path)).toEqual([
      "/workspace/B.txt", "/workspace/a.txt", "/workspace/b", "/workspace/b/inner", "/workspace/b/inner/deep.txt", "/workspace/c-link",
    ]);
    expect(await listTool({ recursive: true, limit: 2 }, ctx)).toMatchObject({ truncated: true, entries: [{ path: "/workspace/B.txt" }, { path: "/workspace/a.txt" }] });
    await expect(listTool({ path: "a.txt" }, ctx)).rejects.toMatchObject({ kind: "invalid_input" });
  });

  test("workspace_info counts; workspace_snapshot hashes every file", async () => {
    expect(await workspaceInfoTool({}, ctx)).toMatchObject({ path: "/workspace", files: 3, folders: 2, symlinks: 1, bytes: 8, truncated: false });
    const snapshot = await workspaceSnapshotTool({}, ctx);
    expect(snapshot.files).toEqual([
      { path: "/workspace/B.txt", size: 1, sha256: "df7e70e5021544f4834bbee64a9e3789febc4be81470df629cad6ddb03320a5c" },
      { path: "/workspace/a.txt", size: 3, sha256: "9834876dcfb05cb167a5c24953eba58c4ac89b1adf57f28f2f9d09af107ee8f0" },
      { path: "/workspace/b/inner/deep.txt", size: 4, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
    ]);
  });
});

describe("grep", () => {
  beforeEach(async () => {
    await mkdir(path.join(workspace, "src"), { recursive: true });
    await mkdir(path.join(workspace, "node_modules", "dep"), { recursive: true });
    await writeFile(path.join(workspace, "src", "main.ts"), "export const TODO = 1;\n// todo: later\r\nok\n");
    await writeFile(path.join(workspace, "src", "notes.md"), "TODO in markdown\n");
    await writeFile(path.join(workspace, "node_modules", "dep", "index.js"), "TODO in a dependency\n");
    await writeFile(path.join(workspace, "image.bin"), Buffer.from([0, 84, 79, 68, 79]));
  });

  test("finds matching lines in order, skipping node_modules and binary files", async () => {
    expect(await grepTool({ pattern: "TODO" }, ctx)).toEqual({
      matches: [
        { path: "/workspace/src/main.ts", line: 1, text: "export const TODO = 1;" },
        { path: "/workspace/src/notes.md", line: 1, text: "TODO in markdown" },
      ],
      filesSearched: 2,
      skippedLarge: 0,
      skippedBinary: 1,
      truncated: false,
    });
  });

  test("ignoreCase, literal, include and limit", async () => {
    const ci = await grepTool({ pattern: "todo", ignoreCase: true, include: "*.ts" }, ctx);
    expect(ci.matches).toEqual([
      { path: "/workspace/src/main.ts", line: 1, text: "export const TODO = 1;" },
      { path: "/workspace/src/main.ts", line: 2, text: "// todo: later" },
    ]);
    expect((await grepTool({ pattern: "TODO = 1;", literal: true }, ctx)).matches).toHaveLength(1);
    expect(await grepTool({ pattern: "TODO", limit: 1 }, ctx)).toMatchObject({ truncated: true, matches: [{ line: 1 }] });
    expect((await grepTool({ pattern: "dependency", path: "/workspace/node_modules" }, ctx)).matches).toHaveLength(1);
  });

  test("an invalid pattern is invalid_input; a catastrophic one is stopped", async () => {
    await expect(grepTool({ pattern: "(" }, ctx)).rejects.toMatchObject({ kind: "invalid_input", message: expect.stringContaining("not a valid regular expression") });
    await expect(grepTool({ pattern: "x", include: "[z-a].ts" }, ctx)).rejects.toMatchObject({ kind: "invalid_input", message: expect.stringContaining("not a valid glob") });
    await expect(grepTool({ pattern: "x", include: "{a,b" }, ctx)).rejects.toMatchObject({ kind: "invalid_input" });
    await writeFile(path.join(workspace, "evil.txt"), `${"a".repeat(40)}!\n`);
    await expect(grepTool({ pattern: "^(a+)+$", path: "evil.txt" }, ctx, 200)).rejects.toMatchObject({ kind: "execution_error", message: expect.stringContaining("simplify the pattern") });
  });

  test("glob rules", () => {
    expect(compileGlob("*.ts")("src/deep/a.ts")).toBe(true);
    expect(compileGlob("src/*.ts")("src/deep/a.ts")).toBe(false);
    expect(compileGlob("src/**/*.ts")("src/deep/a.ts")).toBe(true);
    expect(compileGlob("src/**/*.ts")("src/a.ts")).toBe(true);
    expect(compileGlob("*.{md,txt}")("a.txt")).toBe(true);
    expect(compileGlob("file?.[!a]s")("file1.ts")).toBe(true);
    expect(compileGlob("a.b")("aXb")).toBe(false);
    expect(compileGlob("*.ts")("src/.hidden.ts")).toBe(true);
    expect(compileGlob("[!a]*.md")("docs/b.md")).toBe(true);
    expect(compileGlob("[!a]*.md")("docs/a.md")).toBe(false);
    expect(compileGlob("@(x|y).json")("y.json")).toBe(true);
    expect(() => compileGlob("x[.ts")).toThrow(/not a valid glob/);
  });
});
