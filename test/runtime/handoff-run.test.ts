/**
 * handoff_artifact then deliver_artifact through `runtime.call` (issue 5 "Must show"): a child
 * run on a subagent surface hands a workspace file to its parent run, which reads it and
 * selects it for the user; the delivered bytes are the child's exact bytes, and the host's
 * byte limit is enforced.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blobPath, handoffReceiptPath, listDeliveries, readDeliveredBytes } from "../../runtime-min/core-tools/index.js";
import { openRuntime, type Runtime } from "../../runtime-min/index.js";
import { createCatalogAgent } from "./catalog-fixture.js";
import type { AgentFixture } from "./helpers/agent-fixture.js";

const CHILD = "subagents/researcher";
// Bytes that a text round trip would change: CRLF, a BOM-less UTF-8 é, a trailing NUL.
const REPORT = Buffer.from("# Findings\r\n\r\nr\u00e9sum\u00e9 of the run\u0000", "utf8");

let agent: AgentFixture;
let runtime: Runtime;

beforeAll(async () => {
  agent = await createCatalogAgent();
  runtime = await openRuntime({ root: agent.root, artifactByteLimit: 1024 });
});

afterAll(async () => {
  await runtime?.close();
  agent?.cleanup();
});

describe("handoff then deliver across runs", () => {
  it("delivers the child's exact bytes from its parent run", async () => {
    const child = { surface: CHILD, runId: "child-run-1", parentRunId: "root-run-1", conversationId: "conv-1" } as const;
    const written = await runtime.call({ ...child, tool: "write", input: { path: "/workspace/out/report.md", content: REPORT.toString("base64"), encoding: "base64" } });
    expect(written.status).toBe("ok");
    const handed = await runtime.call({ ...child, tool: "handoff_artifact", input: { path: "/workspace/out/report.md" } });
    const sha512 = createHash("sha512").update(REPORT).digest("hex");
    expect(handed).toMatchObject({ status: "ok", output: { path: "/files/handoffs/child-run-1/out/report.md", sha512, size: REPORT.byteLength } });
    expect(handed.events.map((event) => event.type)).toEqual(["tool.execution_started", "artifact.handed_off", "tool.execution_completed"]);

    // The child's own surface cannot deliver to the user.
    const childDelivery = await runtime.call({ ...child, tool: "deliver_artifact", input: { path: "/workspace/out/report.md" } });
    expect(childDelivery.failure?.kind).toBe("invalid_input");

    const root = { runId: "root-run-1", conversationId: "conv-1" } as const;
    const read = await runtime.call({ ...root, tool: "read", input: { path: "/files/handoffs/child-run-1/out/report.md", encoding: "base64" } });
    expect(read.status).toBe("ok");
    expect(JSON.stringify(read.output)).toContain(REPORT.toString("base64"));
    const delivered = await runtime.call({ ...root, tool: "deliver_artifact", input: { path: "/files/handoffs/child-run-1/out/report.md" } });
    expect(delivered).toMatchObject({ status: "ok", output: { origin: "handoff", sha512, size: REPORT.byteLength } });

    const selections = await listDeliveries(runtime.stateDir, "root-run-1");
    expect(selections).toHaveLength(1);
    expect(selections[0]).toMatchObject({ path: "/files/handoffs/child-run-1/out/report.md", fileName: "report.md", surfaceId: ".", conversationId: "conv-1" });
    expect(Buffer.compare(await readDeliveredBytes(runtime.stateDir, selections[0]!), REPORT)).toBe(0);

    // Another conversation's root run cannot read or deliver the handoff.
    const stranger = await runtime.call({ runId: "root-run-2", conversationId: "conv-2", tool: "deliver_artifact", input: { path: "/files/handoffs/child-run-1/out/report.md" } });
    expect(stranger.failure?.kind).toBe("invalid_input");
    expect(await listDeliveries(runtime.stateDir, "root-run-2")).toEqual([]);
  });

  it("enforces the host's byte limit on both tools", async () => {
    const child = { surface: CHILD, runId: "child-run-big", parentRunId: "root-run-big" } as const;
    await runtime.call({ ...child, tool: "write", input: { path: "/workspace/big.txt", content: "x".repeat(1025) } });
    const handed = await runtime.call({ ...child, tool: "handoff_artifact", input: { path: "/workspace/big.txt" } });
    expect(handed).toMatchObject({ status: "failed", failure: { kind: "invalid_input", runCanContinue: true } });
    expect(handed.error).toContain("over the 1 KiB limit of handoff_artifact");
    await runtime.call({ runId: "root-run-big", tool: "write", input: { path: "/workspace/big.txt", content: "y".repeat(1025) } });
    const delivered = await runtime.call({ runId: "root-run-big", tool: "deliver_artifact", input: { path: "/workspace/big.txt" } });
    expect(delivered.error).toContain("limit of deliver_artifact");
    const fits = await runtime.call({ ...child, tool: "write", input: { path: "/workspace/small.txt", content: "x".repeat(1024) } });
    expect(fits.status).toBe("ok");
    expect((await runtime.call({ ...child, tool: "handoff_artifact", input: { path: "/workspace/small.txt" } })).status).toBe("ok");
  });

  it("copies a file's bytes out of the workspace, never its setuid, setgid, sticky, execute or write bits", async () => {
    // A tool may chmod its workspace files (Node's chmod, a shell's chmod 7777; helper-89 finding 1).
    const child = { surface: CHILD, runId: "child-run-modes", parentRunId: "root-run-modes" } as const;
    const root = { runId: "root-run-modes" } as const;
    const workspaceFile = (runId: string): string => path.join(runtime.stateDir, "runs", runId, "workspace", "tool.bin");
    await runtime.call({ ...child, tool: "write", input: { path: "/workspace/tool.bin", content: "#!/bin/sh\nid\n" } });
    await runtime.call({ ...root, tool: "write", input: { path: "/workspace/tool.bin", content: "#!/bin/sh\nid -u\n" } });
    fs.chmodSync(workspaceFile(child.runId), 0o7777);
    fs.chmodSync(workspaceFile(root.runId), 0o7777);
    const handed = await runtime.call({ ...child, tool: "handoff_artifact", input: { path: "/workspace/tool.bin" } });
    const fromWorkspace = await runtime.call({ ...root, tool: "deliver_artifact", input: { path: "/workspace/tool.bin" } });
    const fromHandoff = await runtime.call({ ...root, tool: "deliver_artifact", input: { path: "/files/handoffs/child-run-modes/tool.bin" } });
    for (const result of [handed, fromWorkspace, fromHandoff]) expect(result.status, result.error).toBe("ok");
    const stored = [
      blobPath(runtime.stateDir, (handed.output as { sha512: string }).sha512),
      blobPath(runtime.stateDir, (fromWorkspace.output as { sha512: string }).sha512),
      handoffReceiptPath(runtime.stateDir, child.runId, "tool.bin"),
      ...fs.readdirSync(path.join(runtime.stateDir, "deliveries", root.runId)).map((name) => path.join(runtime.stateDir, "deliveries", root.runId, name)),
    ];
    expect(stored).toHaveLength(5);
    // What the host keeps is the owner's read-only copy (0400 under any umask), whatever the source's mode.
    for (const file of stored) expect({ file: path.relative(runtime.stateDir, file), mode: (fs.statSync(file).mode & 0o7777).toString(8) }).toEqual({ file: path.relative(runtime.stateDir, file), mode: "400" });
  });
});
