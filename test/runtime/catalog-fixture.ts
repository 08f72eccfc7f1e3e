/**
 * The agent the capability-snapshot tests run against (issue 5 "Must show"): a root surface
 * with one visible tool, 25 deferred `ledger_export_NN` tools, a tagged/aliased pair for
 * ranking, and a hidden tool; a child surface with its own plugin, one of which disables
 * `bash`. Every tool runs the seed's echo implementation.
 */
import { seedTools } from "../helpers/support-agent.js";
import { createAgent, editArtifact, type AgentFixture, type ToolSpec } from "./helpers/agent-fixture.js";

/** Names of the 25 deferred ledger tools, in code-unit order. */
export const LEDGER_TOOLS: readonly string[] = Array.from({ length: 25 }, (_, i) => `ledger_export_${String(i + 1).padStart(2, "0")}`);

/** Input schema of every fixture tool (the echo implementation's). */
export const ECHO_SCHEMA = { type: "object", properties: { message: { type: "string" } }, required: ["message"] } as const;

const echo = (spec: Omit<ToolSpec, "file" | "inputSchema">): ToolSpec => ({ file: seedTools.echo, inputSchema: { ...ECHO_SCHEMA }, ...spec });

/** Builds the catalog agent (root + `subagents/researcher`, whose plugin disables `bash`). */
export async function createCatalogAgent(): Promise<AgentFixture> {
  const agent = await createAgent([
    echo({ name: "echo", description: "Echo a message back to the caller." }),
    ...LEDGER_TOOLS.map((name, i) =>
      echo({ name, capability: "ledger", visibility: "deferred", description: `Export the ledger of region ${i + 1} as CSV.` }),
    ),
    // Ranking: "invoice" is the alias of fetch_bill and the tag of send_reminder; the decoy says
    // "invoice" three times in its description but names it nowhere else.
    echo({ name: "fetch_bill", capability: "billing", visibility: "deferred", description: "Fetch one customer document.", aliases: ["invoice"], tags: ["accounts"] }),
    echo({ name: "send_reminder", capability: "billing", visibility: "deferred", description: "Remind a customer about a payment.", tags: ["invoice"] }),
    echo({ name: "invoice_notes", capability: "billing", visibility: "deferred", description: "Notes: invoice, invoice, invoice history." }),
    echo({ name: "audit_log", capability: "billing", visibility: "hidden", description: "Write the billing audit log.", tags: ["invoice", "ledger"], aliases: ["audit"] }),
    echo({ name: "web_fetch", capability: "research", surface: "subagents/researcher", description: "Fetch a web page." }),
    echo({ name: "summarize", capability: "research", surface: "subagents/researcher", visibility: "deferred", description: "Summarise a long text." }),
  ]);
  editArtifact(agent, (manifest) => {
    manifest.surfaces["subagents/researcher"].disabledCoreTools = ["bash"];
  });
  return agent;
}
