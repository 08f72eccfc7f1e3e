import { defineAssemblyLinePlugin } from "@assemblyline-agents/core";

export default defineAssemblyLinePlugin({
  configSchema: {
    type: "object",
    properties: { index: { type: "string" } },
    required: ["index"],
    additionalProperties: false
  },
  tools: {
    search: {
      definition: "./search.ts",
      factory: "createSearchTool",
      description: "Search the selected index.",
      inputSchema: { type: "object" },
      requiredConfig: ["SEARCH_API_URL"],
      config: { limit: 20 }
    }
  }
});
