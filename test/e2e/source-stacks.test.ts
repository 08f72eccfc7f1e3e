/**
 * A failed tool's stack at its sources in `call`'s pretty output (new-user trial helper-64, M41:
 * it pointed at `.assemblyline/bundles/<hash>.mjs`), through the real CLI (the host bundle, which
 * takes the source maps from the CLI bundle); the `--format json` result keeps the stack as the
 * tool's process reported it. And `bundlePositionMap` gives no map for bytes that are not the
 * artifact's.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { bundlePositionMap } from "../../packaging/bundle-source-map.js";
import { bundleIntegrity } from "../../packaging/integrity.js";
import { copyAgent } from "../helpers/copy-agent.js";
import { runCli, runCliJson } from "../helpers/run-cli.js";
import { supportAgentRoot } from "../helpers/support-agent.js";

const DEFINITION = path.join("plugins", "example", "ai.assemblyline", "echo.ts");

describe("a failed tool's stack", () => {
  let root: string;
  beforeAll(() => {
    root = copyAgent(supportAgentRoot);
    const file = path.join(root, DEFINITION);
    // Line 15, column 37 (`toUpperCase`): where V8 reports the failed property read.
    const text = fs.readFileSync(file, "utf8").replace("  async execute(input: { message: string }) {\n", "  async execute(input: { message: string }) {\n    const missing: any = undefined;\n    if (input.message === \"boom\") missing.toUpperCase();\n");
    fs.writeFileSync(file, text);
    expect(text.split("\n")[14]).toBe('    if (input.message === "boom") missing.toUpperCase();');
    expect(runCli(["compile", root]).status).toBe(0);
  }, 120_000);

  it("is shown at the definition module in call's output, and as reported in --format json", () => {
    const pretty = runCli(["call", "echo", root, "--input", '{"message":"boom"}']);
    expect(pretty.status).toBe(1);
    expect(pretty.stdout).toContain(`at Object.execute (${path.relative(process.cwd(), path.join(root, DEFINITION))}:15:43)`);
    expect(pretty.stdout).not.toMatch(/\.assemblyline\/bundles\/[0-9a-f]+\.mjs/);
    // The runtime's own frames that called the tool are not the tool's (helper-75 K3).
    expect(pretty.stdout).not.toMatch(/\[eval1\]|executeDefinition|runCall|node:internal/);
    const { json } = runCliJson(["call", "echo", root, "--input", '{"message":"boom"}', "--format", "json"]);
    const failed = json.events.find((event: { type: string }) => event.type === "tool.execution_failed");
    expect(failed.stack).toMatch(/at Object\.execute \(file:\/\/\/.*\/\.assemblyline\/bundles\/[0-9a-f]+\.mjs:\d+:\d+\)/);
  }, 60_000);

  it("gets no map when the bundle built again is not the artifact's (another integrity)", async () => {
    const pluginRoot = path.join(root, "plugins", "example");
    const tool = { surfaceId: ".", capability: "example", toolName: "echo", pluginRoot, definitionFile: path.join(root, DEFINITION) };
    const manifest = JSON.parse(fs.readFileSync(path.join(root, ".assemblyline", "build", "manifest.json"), "utf8"));
    const integrity: string = manifest.surfaces["."].tools.echo.integrity;
    const map = await bundlePositionMap(root, tool, integrity);
    expect(map).toBeDefined();
    expect(await bundlePositionMap(root, tool, bundleIntegrity(Buffer.from("another bundle")))).toBeUndefined();
  }, 60_000);
});
