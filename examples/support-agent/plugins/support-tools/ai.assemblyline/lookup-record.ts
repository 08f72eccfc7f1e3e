import { defineTool } from "@assemblyline-agents/core";

export default defineTool({
  description: "Look up a record and return a safe summary.",
  inputSchema: {
    type: "object",
    properties: {
      lookup: { type: "string" }
    },
    required: ["lookup"]
  },
  async execute(input: { lookup: string }) {
    return {
      summary: `Found ${input.lookup}`,
      internalScore: 0.98,
      internalTrace: ["vector", "rerank", "policy"]
    };
  },
  toModelOutput(output: { summary: string }) {
    return { summary: output.summary };
  }
});
