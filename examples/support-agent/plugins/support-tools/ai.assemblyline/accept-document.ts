import { RecoverableToolError, defineTool } from "@assemblyline-agents/core";

export default defineTool({
  description: "Accept a complete document.",
  inputSchema: { type: "object", properties: { document: { type: "string" } }, required: ["document"] },
  async execute(input: { document: string }) {
    if (!input.document.endsWith("}")) {
      throw new RecoverableToolError("Document is incomplete.");
    }
    return { accepted: true };
  }
});
