/**
 * How a warm sandbox process ends when its worker closes (issue 14 item 3): an idle one is killed
 * at once, without waiting for it to see the doorbell close, so a one-shot `call` does not wait
 * for the child's own exit; the worker still resolves only once the exit is seen.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { openRuntime, type Runtime } from "../../runtime-min/index.js";
import { SandboxWorker } from "../../runtime-min/sandbox/sandbox-worker.js";
import { seedTools } from "../helpers/support-agent.js";
import { createAgent, type AgentFixture } from "./helpers/agent-fixture.js";
import { alive } from "./helpers/sandbox-processes.js";

let agent: AgentFixture | undefined;
let runtime: Runtime | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await runtime?.close();
  runtime = undefined;
  agent?.cleanup();
  agent = undefined;
});

describe("closing a sandbox worker", () => {
  it("kills an idle child at once, even one that could not see the doorbell close (stopped), and resolves once it exited", async () => {
    agent = await createAgent([{ name: "echo", file: seedTools.echo }]);
    const started: SandboxWorker[] = [];
    const start = SandboxWorker.start.bind(SandboxWorker);
    vi.spyOn(SandboxWorker, "start").mockImplementation(async (options) => {
      const worker = await start(options);
      started.push(worker);
      return worker;
    });
    runtime = await openRuntime({ root: agent.root });
    expect(await runtime.call({ tool: "echo", input: { message: "hi" }, runId: "run-a" })).toMatchObject({ status: "ok" });
    const [worker] = started;
    const pid = worker!.pid!;
    // The launcher's group, the Node child with it: none of them runs until a signal ends them.
    process.kill(-pid, "SIGSTOP");
    // A grace period longer than the test's timeout: only a kill at once lets this resolve.
    await worker!.close(120_000);
    expect(worker!.alive).toBe(false);
    expect(alive(pid)).toBe(false);
  }, 20_000);
});
