import { createHash } from "node:crypto";
import { chmod, link, mkdir, readFile, readdir, stat, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import {
  BlobIntegrityError,
  blobPath,
  handoffReceiptPath,
  listDeliveries,
  listHandoffs,
  readDeliveredBytes,
} from "../../runtime-min/core-tools/index.js";
import { deliverArtifact } from "../../runtime-min/core-tools/delivery.js";
import { readTool } from "../../runtime-min/core-tools/file-tools.js";
import { handoffArtifact } from "../../runtime-min/core-tools/handoffs.js";
import { makeContext, makeDirs, type Sandbox } from "./context.js";

let dirs: Sandbox;
let childWorkspace: string;
let rootWorkspace: string;

const CHILD = { surfaceId: "subagents/researcher", runId: "run-child-1", parentRunId: "run-root", conversationId: "conv-1" } as const;
const ROOT = { surfaceId: ".", runId: "run-root", conversationId: "conv-1" } as const;
const REPORT = Buffer.from("# Findings\n\nExact bytes, including \u00e9 and a trailing newline.\n", "utf8");

function sha512Hex(bytes: Uint8Array): string {
  return createHash("sha512").update(bytes).digest("hex");
}

beforeEach(async () => {
  dirs = await makeDirs();
  childWorkspace = await dirs.workspace("child");
  rootWorkspace = await dirs.workspace("root");
  await mkdir(path.join(childWorkspace, "out"), { recursive: true });
  await writeFile(path.join(childWorkspace, "out", "report.md"), REPORT);
});
afterEach(() => dirs.cleanup());

describe("handoff_artifact then deliver_artifact", () => {
  test("a child hands a file to its parent, which reads and delivers the exact bytes", async () => {
    const child = makeContext(dirs, { ...CHILD, workspaceDir: childWorkspace, toolCallId: "call-h1" });
    const handed = await handoffArtifact({ path: "/workspace/out/report.md" }, child);
    expect(handed).toEqual({
      path: "/files/handoffs/run-child-1/out/report.md",
      sourcePath: "/workspace/out/report.md",
      sha512: sha512Hex(REPORT),
      integrity: `sha512-${createHash("sha512").update(REPORT).digest("base64")}`,
      size: REPORT.byteLength,
    });
    expect(child.events).toEqual([{ type: "artifact.handed_off", data: { ...handed, parentSurfaceId: "." } }]);

    // Private content-addressed blob with the exact bytes; immutable receipt.
    const blob = blobPath(dirs.stateDir, sha512Hex(REPORT));
    expect(await readFile(blob)).toEqual(REPORT);
    expect((await stat(blob)).mode & 0o777).toBe(0o400);
    const receipt = JSON.parse(await readFile(handoffReceiptPath(dirs.stateDir, "run-child-1", "out/report.md"), "utf8"));
    expect(receipt).toMatchObject({ childSurfaceId: "subagents/researcher", parentSurfaceId: ".", parentRunId: "run-root", conversationId: "conv-1", toolCallId: "call-h1" });

    // The child changing its workspace afterwards does not change the handoff.
    await writeFile(path.join(childWorkspace, "out", "report.md"), "rewritten");

    const root = makeContext(dirs, { ...ROOT, workspaceDir: rootWorkspace, toolCallId: "call-d1" });
    expect(await readTool({ path: handed.path as string }, root)).toMatchObject({ path: handed.path, content: REPORT.toString("utf8").trimEnd() });
    const delivered = await deliverArtifact({ path: handed.path as string }, root);
    expect(delivered).toEqual({ path: handed.path, fileName: "report.md", origin: "handoff", sha512: sha512Hex(REPORT), integrity: handed.integrity, size: REPORT.byteLength });
    expect(root.events.at(-1)).toEqual({ type: "artifact.delivery_selected", data: delivered });

    // Final delivery reads the immutable selection and the verified blob, not the workspace.
    const selections = await listDeliveries(dirs.stateDir, "run-root");
    expect(selections).toEqual([expect.objectContaining({ runId: "run-root", toolCallId: "call-d1", path: handed.path, origin: "handoff", sha512: sha512Hex(REPORT) })]);
    expect(await readDeliveredBytes(dirs.stateDir, selections[0]!)).toEqual(REPORT);
    expect(await listHandoffs(dirs.stateDir, "run-child-1")).toEqual([expect.objectContaining({ path: handed.path })]);
  });

  test("the root delivers its own /workspace file; retrying the same call is idempotent", async () => {
    await writeFile(path.join(rootWorkspace, "summary.txt"), "summary");
    const root = makeContext(dirs, { ...ROOT, workspaceDir: rootWorkspace, toolCallId: "call-d2" });
    const first = await deliverArtifact({ path: "/workspace/summary.txt" }, root);
    expect(first).toMatchObject({ path: "/workspace/summary.txt", origin: "workspace", size: 7 });
    expect(await deliverArtifact({ path: "/workspace/summary.txt" }, root)).toEqual(first);
    await writeFile(path.join(rootWorkspace, "summary.txt"), "changed");
    await expect(deliverArtifact({ path: "/workspace/summary.txt" }, root)).rejects.toMatchObject({ kind: "execution_error" });
    expect(await listDeliveries(dirs.stateDir, "run-root")).toHaveLength(1);
  });

  test("handoff paths are immutable: same bytes again is fine, other bytes are refused", async () => {
    const child = makeContext(dirs, { ...CHILD, workspaceDir: childWorkspace });
    const first = await handoffArtifact({ path: "/workspace/out/report.md" }, child);
    expect(await handoffArtifact({ path: "/workspace/out/report.md" }, child)).toEqual(first);
    await writeFile(path.join(childWorkspace, "out", "report.md"), "v2");
    await expect(handoffArtifact({ path: "/workspace/out/report.md" }, child)).rejects.toMatchObject({ kind: "invalid_input", message: expect.stringContaining("immutable") });
  });
});

describe("byte limit", () => {
  test("is enforced by handoff_artifact and deliver_artifact", async () => {
    const child = makeContext(dirs, { ...CHILD, workspaceDir: childWorkspace, artifactByteLimit: REPORT.byteLength - 1 });
    await expect(handoffArtifact({ path: "/workspace/out/report.md" }, child)).rejects.toMatchObject({
      kind: "invalid_input",
      message: expect.stringMatching(/over the .* limit of handoff_artifact/),
    });
    const exact = makeContext(dirs, { ...CHILD, workspaceDir: childWorkspace, artifactByteLimit: REPORT.byteLength });
    const handed = await handoffArtifact({ path: "/workspace/out/report.md" }, exact);

    const tightRoot = makeContext(dirs, { ...ROOT, workspaceDir: rootWorkspace, artifactByteLimit: 10 });
    await expect(deliverArtifact({ path: handed.path as string }, tightRoot)).rejects.toMatchObject({ kind: "invalid_input", message: expect.stringContaining("limit of deliver_artifact") });
    await writeFile(path.join(rootWorkspace, "big.txt"), "x".repeat(11));
    await expect(deliverArtifact({ path: "/workspace/big.txt" }, tightRoot)).rejects.toMatchObject({ kind: "invalid_input", message: expect.stringContaining("limit of deliver_artifact") });
    expect(await listDeliveries(dirs.stateDir, "run-root")).toEqual([]);
  });

  test("a nonsensical host limit is a configuration_error", async () => {
    const child = makeContext(dirs, { ...CHILD, workspaceDir: childWorkspace, artifactByteLimit: 0 });
    await expect(handoffArtifact({ path: "/workspace/out/report.md" }, child)).rejects.toMatchObject({ kind: "configuration_error" });
  });
});

describe("exclusions and exact paths", () => {
  test.each([
    ["/workspace/node_modules/pkg/index.js", "node_modules"],
    ["/workspace/src/__pycache__/mod.cpython-312.pyc", "__pycache__"],
    ["/workspace/build/mod.pyc", "*.pyc"],
    ["/workspace/.git/config", ".git"],
  ])("%s is refused (%s)", async (workspacePath, part) => {
    const file = path.join(childWorkspace, ...workspacePath.slice("/workspace/".length).split("/"));
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, "internal");
    const child = makeContext(dirs, { ...CHILD, workspaceDir: childWorkspace });
    await expect(handoffArtifact({ path: workspacePath }, child)).rejects.toMatchObject({ kind: "invalid_input", message: expect.stringContaining(`under ${part}, an internal path`) });
  });

  test.each([
    ["/workspace/.GIT/config", ".git"],
    ["/workspace/Node_Modules/pkg/index.js", "node_modules"],
    ["/workspace/build/mod.PYC", "*.pyc"],
  ])("a case variant %s is refused too (issue 12: was handed off)", async (workspacePath, part) => {
    const file = path.join(childWorkspace, ...workspacePath.slice("/workspace/".length).split("/"));
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, "internal");
    const child = makeContext(dirs, { ...CHILD, workspaceDir: childWorkspace });
    await expect(handoffArtifact({ path: workspacePath }, child)).rejects.toMatchObject({ kind: "invalid_input", message: expect.stringContaining(`under ${part}, an internal path`) });
  });

  test("a hard link (to an internal file, or anywhere) is refused (issue 12: was handed off)", async () => {
    await mkdir(path.join(childWorkspace, ".git"));
    await writeFile(path.join(childWorkspace, ".git", "config"), "[core]");
    await link(path.join(childWorkspace, ".git", "config"), path.join(childWorkspace, "config.txt"));
    const child = makeContext(dirs, { ...CHILD, workspaceDir: childWorkspace });
    await expect(handoffArtifact({ path: "/workspace/config.txt" }, child)).rejects.toMatchObject({ kind: "invalid_input", message: expect.stringContaining("has 2 hard links") });
    const root = makeContext(dirs, { ...ROOT, workspaceDir: childWorkspace });
    await expect(deliverArtifact({ path: "/workspace/config.txt" }, root)).rejects.toMatchObject({ kind: "invalid_input", message: expect.stringContaining("hard links") });
  });

  test("a symlink into an internal path is refused too", async () => {
    await mkdir(path.join(childWorkspace, ".git"));
    await writeFile(path.join(childWorkspace, ".git", "config"), "[core]");
    await symlink(path.join(childWorkspace, ".git", "config"), path.join(childWorkspace, "config.txt"));
    const child = makeContext(dirs, { ...CHILD, workspaceDir: childWorkspace });
    await expect(handoffArtifact({ path: "/workspace/config.txt" }, child)).rejects.toMatchObject({ kind: "invalid_input", message: expect.stringContaining(".git") });
  });

  test("only exact /workspace/... files; folders, prose and escapes are refused", async () => {
    const child = makeContext(dirs, { ...CHILD, workspaceDir: childWorkspace });
    await expect(handoffArtifact({ path: "out/report.md" }, child)).rejects.toMatchObject({ kind: "invalid_input", message: expect.stringContaining("exact /workspace/... file") });
    await expect(handoffArtifact({ path: "/workspace/out" }, child)).rejects.toMatchObject({ kind: "invalid_input", message: expect.stringContaining("not a regular file") });
    await expect(handoffArtifact({ path: "/workspace/../outside/x" }, child)).rejects.toMatchObject({ kind: "invalid_input" });
    await expect(handoffArtifact({ path: "/workspace/missing.md" }, child)).rejects.toMatchObject({ kind: "invalid_input", message: expect.stringContaining("no such file") });
    const root = makeContext(dirs, { ...ROOT, workspaceDir: rootWorkspace });
    await expect(deliverArtifact({ path: "see report.md" }, root)).rejects.toMatchObject({ kind: "invalid_input" });
  });
});

describe("who may do what", () => {
  test("the root cannot hand off; a child cannot deliver", async () => {
    await writeFile(path.join(rootWorkspace, "a.txt"), "a");
    const root = makeContext(dirs, { ...ROOT, workspaceDir: rootWorkspace });
    await expect(handoffArtifact({ path: "/workspace/a.txt" }, root)).rejects.toMatchObject({ kind: "invalid_input", message: expect.stringContaining("deliver_artifact") });
    const child = makeContext(dirs, { ...CHILD, workspaceDir: childWorkspace });
    await expect(deliverArtifact({ path: "/workspace/out/report.md" }, child)).rejects.toMatchObject({ kind: "invalid_input", message: expect.stringContaining("handoff_artifact") });
  });

  test("a child run without parentRunId or conversationId is a configuration_error", async () => {
    const child = makeContext(dirs, { surfaceId: "subagents/researcher", runId: "run-child-2", workspaceDir: childWorkspace });
    await expect(handoffArtifact({ path: "/workspace/out/report.md" }, child)).rejects.toMatchObject({ kind: "configuration_error", message: expect.stringContaining("parentRunId or conversationId") });
  });

  test("other conversations and child surfaces cannot read a handoff", async () => {
    const child = makeContext(dirs, { ...CHILD, workspaceDir: childWorkspace });
    const { path: handoffPath } = await handoffArtifact({ path: "/workspace/out/report.md" }, child);
    const laterTurn = makeContext(dirs, { ...ROOT, runId: "run-root-turn-2", workspaceDir: rootWorkspace });
    expect(await readTool({ path: handoffPath as string }, laterTurn)).toMatchObject({ path: handoffPath });
    const otherConversation = makeContext(dirs, { ...ROOT, conversationId: "conv-2", workspaceDir: rootWorkspace });
    const theChild = makeContext(dirs, { ...CHILD, workspaceDir: childWorkspace });
    const unknown = makeContext(dirs, { ...ROOT, workspaceDir: rootWorkspace });
    const notReadable = { kind: "invalid_input", message: expect.stringContaining("No handoff readable") };
    await expect(readTool({ path: handoffPath as string }, otherConversation)).rejects.toMatchObject(notReadable);
    await expect(deliverArtifact({ path: handoffPath as string }, otherConversation)).rejects.toMatchObject(notReadable);
    await expect(readTool({ path: handoffPath as string }, theChild)).rejects.toMatchObject(notReadable);
    await expect(readTool({ path: "/files/handoffs/run-child-1/out/other.md" }, unknown)).rejects.toMatchObject(notReadable);
    await expect(readTool({ path: "/files/handoffs/run-child-1/../x" }, unknown)).rejects.toMatchObject({ kind: "invalid_input", message: expect.stringContaining("not a handoff path") });
  });

  test("without a conversation id only the parent run itself may read", async () => {
    const child = makeContext(dirs, { surfaceId: "subagents/researcher", runId: "run-child-3", parentRunId: "run-root", workspaceDir: childWorkspace });
    const { path: handoffPath } = await handoffArtifact({ path: "/workspace/out/report.md" }, child);
    await expect(readTool({ path: handoffPath as string }, makeContext(dirs, { surfaceId: ".", runId: "run-root", workspaceDir: rootWorkspace }))).resolves.toMatchObject({ path: handoffPath });
    await expect(readTool({ path: handoffPath as string }, makeContext(dirs, { surfaceId: ".", runId: "run-other", workspaceDir: rootWorkspace }))).rejects.toMatchObject({ kind: "invalid_input" });
  });
});

test("damaged blobs are detected when delivered bytes are read", async () => {
  const child = makeContext(dirs, { ...CHILD, workspaceDir: childWorkspace });
  const handed = await handoffArtifact({ path: "/workspace/out/report.md" }, child);
  const blob = blobPath(dirs.stateDir, handed.sha512 as string);
  await chmod(blob, 0o600);
  await writeFile(blob, "tampered");
  const root = makeContext(dirs, { ...ROOT, workspaceDir: rootWorkspace });
  await expect(deliverArtifact({ path: handed.path as string }, root)).rejects.toBeInstanceOf(BlobIntegrityError);
  expect(await readdir(path.join(dirs.stateDir, "deliveries")).catch(() => [])).toEqual([]);
});

test("listHandoffs returns every receipt of a child run, dotfiles included, sorted by path", async () => {
  await writeFile(path.join(childWorkspace, ".notes.md"), "dot");
  await writeFile(path.join(childWorkspace, "out", "a.csv"), "a,b\n");
  const child = makeContext(dirs, { ...CHILD, workspaceDir: childWorkspace });
  for (const file of ["/workspace/out/report.md", "/workspace/.notes.md", "/workspace/out/a.csv"]) await handoffArtifact({ path: file }, child);
  expect((await listHandoffs(dirs.stateDir, "run-child-1")).map((receipt) => receipt.path)).toEqual([
    "/files/handoffs/run-child-1/.notes.md",
    "/files/handoffs/run-child-1/out/a.csv",
    "/files/handoffs/run-child-1/out/report.md",
  ]);
  expect(await listHandoffs(dirs.stateDir, "run-unknown")).toEqual([]);
  expect(await listHandoffs(dirs.stateDir, "../escape")).toEqual([]);
});
