/**
 * Test helper: where the seed's example tools live. `examples/support-agent/` holds the one copy
 * of every example in seed/plugin-tools.md (the example agent users compile and run); tests read,
 * analyse and bundle those files in place instead of keeping copies under `test/fixtures/`.
 * Tests must not write here: copy the agent first (`copyAgent` in `copy-agent.ts`).
 */
import * as path from "node:path";
import { repoRoot } from "./temp-tree.js";

/** Absolute path of the example agent (`examples/support-agent`). */
export const supportAgentRoot = path.join(repoRoot, "examples", "support-agent");

/** Absolute roots of the example agent's plugins that carry the seed's examples. */
export const seedPlugins = {
  /** "Minimal Example": the echo entry (`ai.assemblyline/index.ts`) and its definition. */
  example: path.join(supportAgentRoot, "plugins", "example"),
  /** "Plugin descriptor": `defineAssemblyLinePlugin` with a configSchema and the `createSearchTool` factory. */
  privateSearch: path.join(supportAgentRoot, "plugins", "private-search"),
  /** "Approval Gates", "Durable Steps", "Safe Model Output" and `RecoverableToolError`. */
  supportTools: path.join(supportAgentRoot, "plugins", "support-tools"),
} as const;

/** Absolute paths of the seed's example tool definitions, by the seed section they come from. */
export const seedTools = {
  /** "Minimal Example" (`export default defineTool`, with the seed's path comment on line 1). */
  echo: path.join(seedPlugins.example, "ai.assemblyline", "echo.ts"),
  /** The `createSearchTool` factory of the "Plugin descriptor" example (the seed shows only its descriptor). */
  search: path.join(seedPlugins.privateSearch, "search.ts"),
  /** "Approval Gates": `approvalRequired("Recording a note is a durable side effect.", "idempotent")`. */
  recordNote: path.join(seedPlugins.supportTools, "ai.assemblyline", "record-note.ts"),
  /** "Durable Steps": `ctx.step` around a `fetch` with an idempotency key. */
  hydrateCustomer: path.join(seedPlugins.supportTools, "ai.assemblyline", "hydrate-customer.ts"),
  /** "Safe Model Output": `toModelOutput` (with the import the seed's snippet leaves out). */
  lookupRecord: path.join(seedPlugins.supportTools, "ai.assemblyline", "lookup-record.ts"),
  /** "Tool implementation": `RecoverableToolError` for an incomplete document. */
  acceptDocument: path.join(seedPlugins.supportTools, "ai.assemblyline", "accept-document.ts"),
} as const;
