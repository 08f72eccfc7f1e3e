/**
 * The sandbox process may write in its bridge folder, so a hostile tool can leave anything there
 * for the host to remove when the process ends: a folder chain deeper than PATH_MAX, or a folder
 * where the host's spare envelope file was. Removal happens in the child's exit handler, and a
 * throw there ended the host with exit status 1, its run lease held (host-file review of 5 December, H7,
 * F7b). Each host here is a process of its own, so a crash shows as its exit status.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedTools } from "../helpers/support-agent.js";
import { createAgent, type AgentFixture } from "./helpers/agent-fixture.js";

const loader = path.join(import.meta.dirname, "helpers", "ts-loader.mjs");
let agent: AgentFixture;

beforeAll(async () => {
  agent = await createAgent([
    { name: "echo", file: seedTools.echo },
    { name: "deep_bridge", file: "bridge-hostile.ts", factory: "deepBridge" },
    { name: "spare_to_folder", file: "bridge-hostile.ts", factory: "spareToFolder" },
  ]);
  const runtime = path.resolve(import.meta.dirname, "..", "..", "runtime-min", "index.ts");
  fs.writeFileSync(
    path.join(agent.root, "host.ts"),
    `import { openRuntime } from ${JSON.stringify(runtime)};
const [tool, mode] = process.argv.slice(2);
const runtime = await openRuntime({ root: process.cwd() });
const first = await runtime.call({ tool, input: { exit: mode === "exit" }, runId: "r-" + tool + "-" + mode });
await new Promise((resolve) => setTimeout(resolve, 500));
const next = await runtime.call({ tool: "echo", input: { message: "still here" }, runId: "r-" + tool + "-" + mode });
await runtime.close();
console.log(JSON.stringify({ first: { status: first.status, output: first.output }, next: next.output }));
`,
  );
}, 120_000);

afterAll(() => {
  spawnSync("rm", ["-rf", "--", agent.root]);
  agent?.cleanup();
});

describe("what a tool leaves in its bridge folder", () => {
  for (const tool of ["deep_bridge", "spare_to_folder"]) {
    for (const mode of ["exit", "close"]) {
      it(`${tool}, then the process ${mode === "exit" ? "exits by itself" : "is ended by runtime.close()"}: the host lives on, and the folder is gone`, async () => {
        const host = spawnSync(process.execPath, ["--import", loader, path.join(agent.root, "host.ts"), tool, mode], { cwd: agent.root, encoding: "utf8", timeout: 90_000 });
        expect(host.status, host.stderr).toBe(0);
        const outcome = JSON.parse(host.stdout.trim().split("\n").pop()!);
        expect(outcome).toMatchObject({ first: { status: "ok" }, next: { message: "still here" } });
        if (tool === "spare_to_folder") expect(outcome.first.output.replaced).toHaveLength(1);
        // No bridge folder of that host is left (its pid names them), also none moved aside once its removal in the background is done.
        const uid = process.getuid?.();
        const shared = [path.join("/dev/shm", `assembly-line-bridge-${uid}`), path.join(agent.root, ".assemblyline", "bridge")];
        const left = (): string[] => shared.flatMap((root) => (fs.existsSync(root) ? fs.readdirSync(root).filter((name) => name.startsWith(`${host.pid}-`) || name.startsWith(`.trash-${host.pid}-`)) : []));
        for (let waited = 0; left().length > 0 && waited < 60_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
        expect(left()).toEqual([]);
      }, 120_000);
    }
  }
});
