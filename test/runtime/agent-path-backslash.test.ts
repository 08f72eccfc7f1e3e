/**
 * An agent whose path has a backslash (legal in a POSIX file name): Node's ES module loader
 * refuses the file URL of its bundles (`%5C`, ERR_INVALID_MODULE_SPECIFIER), so no authored tool
 * can load there. The call fails as a configuration error that says so and how to fix it, in a
 * sandbox process and in the host alike (it was an execution error quoting Node's message and
 * stack).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openRuntime } from "../../runtime-min/index.js";
import { seedTools } from "../helpers/support-agent.js";
import { createAgent, type AgentFixture } from "./helpers/agent-fixture.js";

let agent: AgentFixture;
let root: string;

beforeAll(async () => {
  agent = await createAgent([{ name: "echo", file: seedTools.echo }]);
  root = path.join(fs.mkdtempSync(path.join(path.dirname(agent.root), "al-back\\slash-")), "agent");
  fs.cpSync(agent.root, root, { recursive: true });
}, 120_000);

afterAll(() => {
  fs.rmSync(path.dirname(root), { recursive: true, force: true });
  agent?.cleanup();
});

describe.runIf(process.platform !== "win32")("an agent whose path has a backslash", () => {
  for (const execution of ["sandbox", "direct"] as const) {
    it(`fails its calls as a configuration error that names the backslash (${execution})`, async () => {
      const runtime = await openRuntime({ root, execution });
      try {
        const result = await runtime.call({ tool: "echo", input: { message: "hi" }, runId: `back-${execution}` });
        expect(result).toMatchObject({ status: "failed", failure: { kind: "configuration_error" } });
        expect(result.error).toBe("Loading the bundle of tool 'echo' failed: the agent's path has a backslash (\\), which Node's module loader refuses in a file URL. Move the agent to a folder whose path has none.");
      } finally {
        await runtime.close();
      }
    }, 60_000);
  }
});
