/**
 * The README's "authoring API" example is real: its entry and its factory-made tool compile,
 * the config merges (the agent's capability config wins over the descriptor's), the approval
 * gate stops the call, and the approved call runs its durable step and event.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { runCli, runCliJson } from "../helpers/run-cli.js";
import { repoRoot, tempDir, writeTree } from "../helpers/temp-tree.js";

const readme = fs.readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../README.md"), "utf8");
const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);

describe("the README's authoring example", () => {
  it("type-checks as written under the tsconfig.json `init` writes (new-user trial C13: a verbatim copy called an undefined save)", () => {
    const root = path.join(tempDir("al-readme-tsc-"), "agent");
    expect(runCli(["init", root]).status).toBe(0);
    const folder = path.join(root, "plugins", "notes", "ai.assemblyline");
    fs.mkdirSync(folder, { recursive: true });
    fs.writeFileSync(path.join(folder, "index.ts"), blocks.find((block) => block.includes("plugins/notes/ai.assemblyline/index.ts"))!);
    fs.writeFileSync(path.join(folder, "save-note.ts"), blocks.find((block) => block.includes("export function createSaveNote"))!);
    const tsc = spawnSync(process.execPath, [path.join(repoRoot, "node_modules", "typescript", "bin", "tsc"), "-p", path.join(root, "tsconfig.json")], { encoding: "utf8" });
    expect(tsc.stdout + tsc.stderr).toBe("");
    expect(tsc.status).toBe(0);
  });

  it("compiles, stops at the approval gate, and runs once approved with the merged config", () => {
    const entry = blocks.find((block) => block.includes("plugins/notes/ai.assemblyline/index.ts"));
    const tool = blocks.find((block) => block.includes("export function createSaveNote"));
    expect(entry).toBeDefined();
    expect(tool).toBeDefined();
    const root = writeTree({
      "agent.md": "---\nname: notes-agent\ncapabilities:\n  notes:\n    config: { folder: team }\n---\nTakes notes.\n",
      "plugins/notes/plugin.json": JSON.stringify({ $schema: "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", name: "notes", version: "1.0.0" }),
      "plugins/notes/ai.assemblyline/index.ts": entry!,
      // Verbatim: the README's block defines its own stand-in for `save` (new-user trial C13).
      "plugins/notes/ai.assemblyline/save-note.ts": tool!,
    });
    const compiled = runCli(["compile", root, "--format", "json"]);
    expect(JSON.parse(compiled.stdout).diagnostics).toEqual([]);
    expect(compiled.status).toBe(0);

    const gated = runCliJson(["call", "save_note", root, "--input", '{"text":"hi"}', "--run", "r1", "--call", "c1", "--format", "json"]);
    expect(gated.json.status).toBe("approval_required");
    expect(gated.json.approval).toEqual({ reason: "Saving a note writes outside the run.", sideEffect: "idempotent", state: "pending" });

    const approved = runCliJson(["approve", "c1", root, "--run", "r1", "--format", "json"]);
    expect(approved.json.status).toBe("ok");
    expect(approved.json.output).toMatch(/^Saved note team\/\S+\.$/);
    expect(approved.json.events.map((event: { type: string }) => event.type)).toEqual([
      "tool.approval_granted",
      "tool.execution_started",
      "durable_step.recorded",
      "note.saved",
      "tool.execution_completed",
    ]);

    // A second note in the same run is saved too, not replayed from the first (new-user trial 112, B1).
    expect(runCliJson(["call", "save_note", root, "--input", '{"text":"second"}', "--run", "r1", "--call", "c2", "--format", "json"]).json.status).toBe("approval_required");
    const second = runCliJson(["approve", "c2", root, "--run", "r1", "--format", "json"]);
    expect(second.json.events.map((event: { type: string }) => event.type)).toContain("durable_step.recorded");
    expect(second.json.output).toMatch(/^Saved note team\/\S+\.$/);
    expect(second.json.output).not.toBe(approved.json.output);
  });
});
