/**
 * The seed's `Uint8Array` imports (".bin and .wasm become Uint8Array values, as does any file
 * imported with with { type: \"bytes\" }") carry the file's exact bytes through the whole
 * pipeline: compile, the real bundle, a sandboxed `call`. Text-looking content with CR LF is the
 * case a line-ending rewrite would break. The lock tells such files apart by their bytes too.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { runCliJson } from "../helpers/run-cli.js";
import { writeTree } from "../helpers/temp-tree.js";

const DEFINITION = `import { defineTool } from "@assemblyline-agents/core";
import bin from "./assets/data.bin";
import wasm from "./assets/parser.wasm";
import notesBytes from "./assets/notes.txt" with { type: "bytes" };
import notesText from "./assets/notes.txt";
import svg from "./assets/icon.svg";

const list = (value: Uint8Array) => ({ isUint8Array: value instanceof Uint8Array, bytes: [...value] });

export default defineTool({
  description: "Report the bytes of every binary import.",
  inputSchema: { type: "object" },
  async execute() {
    return { bin: list(bin), wasm: list(wasm), notesBytes: list(notesBytes), notesText, svg };
  }
});
`;

function agent(binContent: string): string {
  return writeTree({
    "agent.md": "---\ncapabilities:\n  bytes: {}\n---\n",
    "plugins/bytes/plugin.json": JSON.stringify({ $schema: "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", name: "bytes" }),
    "plugins/bytes/ai.assemblyline/index.ts":
      'export default { tools: { bytes_report: { definition: "./ai.assemblyline/report.ts", description: "Report the bytes of every binary import.", inputSchema: { type: "object" } } } };\n',
    "plugins/bytes/ai.assemblyline/report.ts": DEFINITION,
    "plugins/bytes/ai.assemblyline/assets/data.bin": binContent,
    "plugins/bytes/ai.assemblyline/assets/parser.wasm": "asm\r\n",
    "plugins/bytes/ai.assemblyline/assets/notes.txt": "one\r\ntwo\r\n",
    "plugins/bytes/ai.assemblyline/assets/icon.svg": "<svg/>\r\n",
  });
}

const lockedIntegrity = (root: string): string => JSON.parse(fs.readFileSync(path.join(root, "plugins.lock"), "utf8")).surfaces["."].capabilities.bytes.integrity;

describe("binary imports in a sandboxed tool", () => {
  it("keep every byte, CR LF included; only the string import reads CR LF as LF", () => {
    const root = agent("A\r\nB");
    const { status, json, stderr } = runCliJson(["call", "bytes_report", root, "--input", "{}"]);
    expect(status, stderr).toBe(0);
    expect(json.status).toBe("ok");
    expect(json.events[0]).toMatchObject({ type: "tool.execution_started", runtimeBoundary: "sandbox" });
    expect(json.output).toEqual({
      bin: { isUint8Array: true, bytes: [65, 13, 10, 66] },
      wasm: { isUint8Array: true, bytes: [...Buffer.from("asm\r\n")] },
      notesBytes: { isUint8Array: true, bytes: [...Buffer.from("one\r\ntwo\r\n")] },
      notesText: "one\ntwo\n",
      svg: `data:image/svg+xml;base64,${Buffer.from("<svg/>\r\n").toString("base64")}`,
    });
  });

  it("a .bin holding A CR LF B and one holding A LF B lock different plugin integrities", () => {
    const crlf = agent("A\r\nB");
    const lf = agent("A\nB");
    for (const root of [crlf, lf]) {
      const { status, stderr } = runCliJson(["compile", root]);
      expect(status, stderr).toBe(0);
    }
    expect(lockedIntegrity(crlf)).not.toBe(lockedIntegrity(lf));
  });
});
