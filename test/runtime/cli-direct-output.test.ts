/**
 * What a tool prints under `--execution direct` (it runs in the host process) goes to the CLI's
 * standard error, so `--format json` still prints exactly one JSON object on stdout (new-user
 * trial 112, C5: the tool's text came before the JSON and `JSON.parse` failed).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent, type AgentFixture } from "./helpers/agent-fixture.js";
import { runSourceCli } from "./helpers/run-source-cli.js";

let agent: AgentFixture;

beforeAll(async () => {
  agent = await createAgent([{ name: "chatty", file: "probes.ts", factory: "chatty" }]);
});

afterAll(() => agent?.cleanup());

describe("a tool's own output under --execution direct", () => {
  it("goes to stderr; stdout is the command's answer alone", () => {
    const run = runSourceCli("call", "chatty", agent.root, "--input", "{}", "--execution", "direct", "--format", "json");
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: "ok", output: { done: true } });
    expect(run.stderr).toContain("chatty: console.log line");
    expect(run.stderr).toContain("chatty: raw stdout write");
    expect(run.stderr).toContain("chatty: console.error line");
    const pretty = runSourceCli("call", "chatty", agent.root, "--input", "{}", "--execution", "direct");
    expect(pretty.stdout).toMatch(/^ok chatty \(run \S+, call \S+\)\n/);
    expect(pretty.stderr).toContain("chatty: console.log line");
  });

  it("in the sandbox it is not printed at all", () => {
    const run = runSourceCli("call", "chatty", agent.root, "--input", "{}", "--format", "json");
    expect(JSON.parse(run.stdout)).toMatchObject({ status: "ok", output: { done: true } });
    expect(run.stdout + run.stderr).not.toContain("chatty:");
  });
});
