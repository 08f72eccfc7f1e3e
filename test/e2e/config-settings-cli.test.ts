/**
 * The project configuration's compile settings (`targets`, `tokenBudget`, `rules`) in every
 * command that compiles, through the real CLI (new-user trial 129, finding 6): `review` passed,
 * exit 0, a tree `compile --check` failed with a target's error and a budget overrun, and the host
 * commands' compile-first step wrote a lock `compile` refused to write. Now both apply the
 * settings as `compile` does (`build/compile-settings.ts`).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, runCliJson } from "../helpers/run-cli.js";
import { writeFiles } from "../helpers/temp-tree.js";
import { agentWithTools, rewriteTools } from "../providers/helpers.js";

/** A schema anthropic-strict refuses (a string bound, an open root object) and the other targets accept. */
const BOUNDED = { type: "object", properties: { text: { type: "string", minLength: 1 } } };

/** `[code, file]` of each diagnostic of a JSON document. */
function codes(json: { diagnostics?: readonly { code: string; file: string }[] }): [string, string][] {
  return (json.diagnostics ?? []).map((d) => [d.code, d.file]);
}

describe("the host commands' compile-first step applies the configuration's compile settings", () => {
  it("refuses, as compile does, to write a lock a target refuses, and writes nothing", () => {
    const root = agentWithTools({ echo: { inputSchema: { type: "object" } } });
    expect(runCli(["compile", root]).status).toBe(0);
    const lock = fs.readFileSync(path.join(root, "plugins.lock"), "utf8");
    // A changed plugin (the lock is stale) and a configuration whose target refuses the new schema.
    rewriteTools(root, { echo: { inputSchema: BOUNDED } });
    writeFiles(root, { "assembly-line.config.json": '{ "targets": ["anthropic-strict"] }\n' });
    const compiled = runCliJson(["compile", root, "--no-package"]);
    expect(compiled.status).toBe(1);
    const refused = runCliJson(["call", "echo", root, "--input", '{"text":"x"}']);
    expect(refused.status).toBe(1);
    expect(refused.json.status).toBe("failed");
    expect(codes(refused.json)).toEqual(codes(compiled.json));
    expect(codes(refused.json)).toContainEqual(["AL4703", "plugins/tools/ai.assemblyline/index.ts"]);
    expect(refused.json.lockChanged).toBe(false);
    expect(fs.readFileSync(path.join(root, "plugins.lock"), "utf8")).toBe(lock);
    // Without the configuration the same step compiles and runs the tool.
    expect(runCliJson(["call", "echo", root, "--input", '{"text":"x"}', "--no-project-config"]).json).toMatchObject({ status: "ok", lockChanged: true });
  });

  it("checks a current artifact again when the settings changed, as `compile --check` would fail it", () => {
    const root = agentWithTools({ echo: { inputSchema: BOUNDED } });
    // The file is there from the start: the folder's listing, which a compile reads, stays the same.
    writeFiles(root, { "assembly-line.config.json": "{}\n" });
    expect(runCli(["compile", root]).status).toBe(0);
    expect(runCli(["tools", root]).status).toBe(0);
    // No input of the agent changed: only the configuration's budget, which the snapshot is over.
    writeFiles(root, { "assembly-line.config.json": '{ "tokenBudget": 50 }\n' });
    const over = runCliJson(["tools", root]);
    expect(over.status).toBe(1);
    expect(codes(over.json)).toEqual([["AL4720", "agent.md"]]);
    // A rule that raises a warning to an error (AL4039: a nullable type whose enum refuses null) stops it too.
    rewriteTools(root, { echo: { inputSchema: { type: "object", properties: { sort: { type: ["string", "null"], enum: ["a"] } } } } });
    writeFiles(root, { "assembly-line.config.json": '{ "rules": { "AL4039": "error" } }\n' });
    const raised = runCliJson(["search", "echo", root, "--locked"]);
    expect(raised.status).toBe(1);
    // (AL6013: the stale lock was not checked, because of AL4039; AL8068: --locked does not compile.)
    expect(codes(raised.json).map(([code]) => code)).toEqual(["AL6013", "AL4039", "AL8068"]);
    expect(runCliJson(["search", "echo", root]).status).toBe(1);
  });
});

describe("review applies the configuration's compile settings, flags over them", () => {
  it("fails (exit 1, nothing reviewed) where compile --check fails for a target or the budget, and reviews without them", () => {
    const root = agentWithTools({ echo: { inputSchema: BOUNDED } });
    writeFiles(root, { "assembly-line.config.json": '{ "targets": ["anthropic-strict"] }\n' });
    const review = runCliJson(["review", root, "--format", "json"]);
    expect(review.status).toBe(1);
    expect(review.json.changes).toEqual([]);
    expect(codes(review.json).map(([code]) => code)).toEqual(["AL4708", "AL4703"]);
    expect(runCli(["compile", root, "--check"]).status).toBe(1);
    // --no-config: the review of the same tree (no target), exit 0.
    const plain = runCliJson(["review", root, "--format", "json", "--no-config"]);
    expect([plain.status, plain.json]).toEqual([0, { changes: [{ kind: "tool-added", surface: ".", tool: "echo", detail: "echo (tools, visible)" }] }]);
    // The flags compile takes, over the configuration.
    expect(codes(runCliJson(["review", root, "--format", "json", "--no-config", "--token-budget", "50"]).json)).toEqual([["AL4720", "agent.md"]]);
    const pretty = runCli(["review", root, "--target", "openai"]);
    expect(pretty.status).toBe(0);
    expect(pretty.stdout).toContain("1 change.");
  });

  it("stops at a configuration that is not valid, as compile does", () => {
    const root = agentWithTools({ echo: { inputSchema: { type: "object" } } });
    writeFiles(root, { "assembly-line.config.json": '{ "tokenBudget": "many" }\n' });
    const review = runCliJson(["review", root, "--format", "json"]);
    expect(review.status).toBe(1);
    expect(codes(review.json)).toEqual([["AL9111", "assembly-line.config.json"]]);
  });
});
