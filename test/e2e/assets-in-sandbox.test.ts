/**
 * Issue 4 "Must show": every asset kind of the seed's rules, from a real bundle in a real
 * sandbox process, through the CLI: compile, then `call` the tool and read what it saw.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { runCliJson } from "../helpers/run-cli.js";
import { writeTree } from "../helpers/temp-tree.js";

const PNG = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex");
const WASM = Buffer.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);
const BLOB = Buffer.from([0x00, 0xff, 0x0d, 0x0a]);

const DEFINITION = `import { defineTool } from "@assemblyline-agents/core";
import prompt from "./assets/prompt.md";
import query from "./assets/query.sql";
import config from "./assets/config.yaml";
import source from "./assets/helper.js" with { type: "text" };
import logo from "./assets/logo.png";
import font from "./assets/font.woff2";
import wasm from "./assets/parser.wasm";
import blob from "./assets/blob.bin";
import raw from "./assets/raw.dat" with { type: "bytes" };
import data from "./assets/data.json";

const bytes = (value: Uint8Array) => ({ isUint8Array: value instanceof Uint8Array, hex: Buffer.from(value).toString("hex") });

export default defineTool({
  description: "Report every asset kind.",
  inputSchema: { type: "object" },
  async execute() {
    return {
      prompt, query, config, source,
      logo: logo.slice(0, 30), logoLength: logo.length, font: font.slice(0, 16),
      wasm: bytes(wasm), blob: bytes(blob), raw: bytes(raw),
      data
    };
  }
});
`;

describe("asset imports in a sandboxed tool", () => {
  it("become strings, data URLs, Uint8Arrays and parsed JSON exactly as the seed says", () => {
    const root = writeTree({
      "agent.md": "---\ncapabilities:\n  assets: {}\n---\n",
      "plugins/assets/plugin.json": JSON.stringify({ $schema: "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", name: "assets" }),
      "plugins/assets/ai.assemblyline/index.ts":
        'export default { tools: { asset_report: { definition: "./ai.assemblyline/report.ts", description: "Report every asset kind.", inputSchema: { type: "object" } } } };\n',
      "plugins/assets/ai.assemblyline/report.ts": DEFINITION,
      "plugins/assets/ai.assemblyline/assets/prompt.md": "# Prompt\r\nBe brief.\r\n",
      "plugins/assets/ai.assemblyline/assets/query.sql": "select 1;\n",
      "plugins/assets/ai.assemblyline/assets/config.yaml": "mode: fast\n",
      "plugins/assets/ai.assemblyline/assets/helper.js": "export const x = 1;\n",
      "plugins/assets/ai.assemblyline/assets/logo.png": PNG,
      "plugins/assets/ai.assemblyline/assets/font.woff2": Buffer.from("wOF2"),
      "plugins/assets/ai.assemblyline/assets/parser.wasm": WASM,
      "plugins/assets/ai.assemblyline/assets/blob.bin": BLOB,
      "plugins/assets/ai.assemblyline/assets/raw.dat": Buffer.from("raw!"),
      "plugins/assets/ai.assemblyline/assets/data.json": '{ "answer": 42, "list": [1, 2] }\n',
      "plugins/assets/ai.assemblyline/assets/not-imported.txt": "SECRET-NEIGHBOUR",
    });
    const { status, json, stderr } = runCliJson(["call", "asset_report", root, "--input", "{}"]);
    expect(status, stderr).toBe(0);
    expect(json.status).toBe("ok");
    expect(json.events[0]).toMatchObject({ type: "tool.execution_started", runtimeBoundary: "sandbox" });
    expect(json.output).toEqual({
      prompt: "# Prompt\nBe brief.\n", // CRLF in a text asset is read as LF
      query: "select 1;\n",
      config: "mode: fast\n",
      source: "export const x = 1;\n",
      logo: `data:image/png;base64,${PNG.toString("base64")}`.slice(0, 30),
      logoLength: `data:image/png;base64,${PNG.toString("base64")}`.length,
      font: "data:font/woff2;",
      wasm: { isUint8Array: true, hex: WASM.toString("hex") },
      blob: { isUint8Array: true, hex: BLOB.toString("hex") },
      raw: { isUint8Array: true, hex: Buffer.from("raw!").toString("hex") },
      data: { answer: 42, list: [1, 2] },
    });
    const bundleDir = path.join(root, ".assemblyline/build/bundles/root/assets/ai.assemblyline");
    const bundle = fs.readFileSync(path.join(bundleDir, "report.mjs"), "utf8");
    expect(bundle).not.toContain("SECRET-NEIGHBOUR");
    expect(fs.readdirSync(bundleDir)).toEqual(["report.mjs"]);
  });
});
