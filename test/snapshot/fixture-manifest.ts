/** A small artifact manifest with a root and a child surface, built in memory for tests. */
import type { ArtifactManifest, ArtifactTool } from "../../contract/manifest.js";

/** An authored tool of `capability` with sensible defaults. */
export function authoredTool(capability: string, overrides: Partial<ArtifactTool> = {}): ArtifactTool {
  return {
    capability,
    description: `A tool of ${capability}.`,
    inputSchema: { type: "object", properties: {} },
    visibility: "visible",
    requiredConfig: [],
    config: {},
    tags: [],
    aliases: [],
    bundle: `tools/${capability}.mjs`,
    integrity: "sha512-AAAA",
    ...overrides,
  };
}

/**
 * Root `"."`: `echo` (visible), `invoice_lookup` (deferred, tag billing, alias invoice),
 * `audit_log` (hidden). Child `"subagents/researcher"`: `web_fetch` (visible), `summarize`
 * (deferred); a plugin there disables `bash`.
 */
export function fixtureManifest(): ArtifactManifest {
  return {
    manifestVersion: 1,
    lockIntegrity: "sha512-LOCK",
    surfaces: {
      ".": {
        parent: null,
        disabledCoreTools: [],
        skills: [
          { name: "triage", description: "How to triage a ticket.", capability: null, file: "skills/root/triage/SKILL.md" },
          { name: "refunds", description: "Refund procedure.", capability: "billing", file: "skills/billing/refunds/SKILL.md" },
        ],
        tools: {
          echo: authoredTool("example", { description: "Echo a message back to the caller.", inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] } }),
          invoice_lookup: authoredTool("billing", { description: "Look up one customer record by number.", visibility: "deferred", tags: ["billing"], aliases: ["invoice"], needsApproval: { reason: "Reads billing data.", sideEffect: "idempotent" } }),
          audit_log: authoredTool("billing", { description: "Write the billing audit log.", visibility: "hidden", tags: ["billing"], aliases: ["audit"] }),
        },
      },
      "subagents/researcher": {
        parent: ".",
        disabledCoreTools: ["bash"],
        skills: [{ name: "web-research", description: "Research on the web.", capability: "research", file: "skills/research/web-research/SKILL.md" }],
        tools: {
          web_fetch: authoredTool("research", { description: "Fetch a web page." }),
          summarize: authoredTool("research", { description: "Summarise a long text.", visibility: "deferred" }),
        },
      },
    },
  };
}
