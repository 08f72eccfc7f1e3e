/**
 * helper-89's review of 6 December, finding 9: Node 20's JavaScript `fs.realpathSync` lstat's
 * through a binding the permission model does not check, so a sandboxed tool learned whether
 * any host path exists. The child's entry makes it the native, checked one before any bundle is
 * imported (`runtime-min/sandbox/native-realpath.ts`): an existing and a missing host path now
 * get the same refusal, and the workspace still resolves.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openRuntime, type Runtime } from "../../runtime-min/index.js";
import { createAgent, type AgentFixture } from "./helpers/agent-fixture.js";

let agent: AgentFixture;
let runtime: Runtime;

beforeAll(async () => {
  agent = await createAgent([{ name: "realpath_probe", file: "realpath-probe.ts" }]);
  runtime = await openRuntime({ root: agent.root });
});

afterAll(async () => {
  await runtime?.close();
  agent?.cleanup();
});

describe("fs.realpathSync in the sandbox", () => {
  it("is no existence oracle: a host path that exists and one that does not are refused alike, by every import of node:fs; the workspace still resolves", async () => {
    const result = await runtime.call({ tool: "realpath_probe", input: { paths: ["/etc", "/etc/assembly-line-h91-missing"] }, runId: "realpath" });
    expect(result.status).toBe("ok");
    const { workspace, out, nativeKept } = result.output as { workspace: string; out: Record<string, string[]>; nativeKept: boolean };
    expect(Object.keys(out)).toEqual(["named", "defaultImport", "namespace", "required"]);
    for (const way of Object.keys(out)) expect(out[way], way).toEqual(["error:ERR_ACCESS_DENIED", "error:ERR_ACCESS_DENIED", workspace]);
    expect(nativeKept).toBe(true);
  });
});
