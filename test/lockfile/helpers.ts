/** Shared helpers of the lockfile tests: temp directories and a realistic sample lock. */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import ssri from "ssri";
import { afterEach } from "vitest";
import type { Lockfile } from "../../lockfile/types.js";

const created: string[] = [];

/** A fresh temp directory, removed after the current test. */
export function tempDir(prefix = "al-lock-"): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  created.push(dir);
  return dir;
}

afterEach(() => {
  for (const dir of created.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** Writes a map of relative paths to contents under `root` (creating folders). */
export function writeFiles(root: string, files: Record<string, string | Uint8Array>): void {
  for (const [relative, content] of Object.entries(files)) {
    const file = path.join(root, relative);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  }
}

/** An SRI sha512 of a string (a well-formed integrity value for sample locks). */
export function sri(text: string): string {
  return ssri.fromData(text, { algorithms: ["sha512"] }).toString();
}

/** A lock with one local and one npm capability, including a disabled core tool. */
export function sampleLock(): Lockfile {
  return {
    lockfileVersion: 1,
    surfaces: {
      ".": {
        capabilities: {
          example: {
            source: { type: "local", path: "plugins/example" },
            integrity: sri("example"),
            config: {},
            tools: {
              echo: {
                definition: "./ai.assemblyline/echo.ts",
                description: "Echo a message back to the caller.",
                inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] },
                visibility: "visible",
                requiredConfig: [],
                config: {},
                tags: [],
                aliases: [],
              },
              bash: { disabled: true },
            },
          },
          openui: {
            source: { type: "npm", name: "@assemblyline-agents/openui", version: "1.0.0" },
            integrity: sri("openui"),
            config: { brand: { name: "Example" } },
            tools: {
              render_card: {
                definition: "./ai.assemblyline/render-card.ts",
                factory: "createRenderCard",
                description: "Render a card.",
                inputSchema: { type: "object" },
                visibility: "deferred",
                needsApproval: { reason: "Shows UI to the user.", sideEffect: "external" },
                requiredConfig: ["OPENUI_ENDPOINT"],
                config: { brand: { name: "Example" }, limit: 20 },
                tags: ["ui"],
                aliases: ["card"],
                namespace: "openui",
                bundle: sri("bundle"),
              },
            },
          },
        },
      },
      "subagents/research": { capabilities: {} },
    },
  };
}
