import { defineTool } from "@assemblyline-agents/core";

export default defineTool({
  description: "Format a source as a short citation.",
  inputSchema: {
    type: "object",
    properties: { title: { type: "string" }, url: { type: "string", format: "uri" } },
    required: ["title", "url"],
    additionalProperties: false
  },
  async execute(input: { title: string; url: string }) {
    return { citation: `${input.title} <${input.url}>` };
  }
});
