export default {
  tools: {
    format_citation: {
      definition: "./ai.assemblyline/format-citation.ts",
      description: "Format a source as a short citation.",
      inputSchema: {
        type: "object",
        properties: { title: { type: "string" }, url: { type: "string", format: "uri" } },
        required: ["title", "url"],
        additionalProperties: false
      }
    }
  }
};
