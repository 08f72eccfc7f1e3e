import { defineTool } from "@assemblyline-agents/core";

/** The merged config: the descriptor's `{ limit: 20 }` plus the agent's `{ index }`. */
export interface SearchConfig {
  readonly index: string;
  readonly limit: number;
}

const catalogue = ["Trail running shoes", "Rain jacket", "Insulated bottle", "Headlamp"];

/**
 * The factory named by the descriptor: receives `{ limit: 20, index: "products" }` and returns
 * the tool. The host's `SEARCH_API_URL` arrives in read-only `ctx.config` at run time.
 */
export function createSearchTool(config: SearchConfig) {
  return defineTool({
    description: "Search the selected index.",
    inputSchema: { type: "object" },
    async execute(input: { query?: string }, ctx) {
      const query = (input.query ?? "").toLowerCase();
      const hits = catalogue.filter((item) => item.toLowerCase().includes(query)).slice(0, config.limit);
      return { index: config.index, limit: config.limit, endpoint: ctx.config["SEARCH_API_URL"], hits };
    }
  });
}
