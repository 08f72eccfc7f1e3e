/** Shared helpers of the lockfile tests: SRI values and a realistic sample lock. */
import ssri from "ssri";
import type { Lockfile } from "../../contract/lockfile-types.js";

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
