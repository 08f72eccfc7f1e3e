// plugins/example/ai.assemblyline/echo.ts
import { defineTool } from "@assemblyline-agents/core";

export default defineTool({
  description: "Echo a message back to the caller.",
  inputSchema: {
    type: "object",
    properties: {
      message: { type: "string" }
    },
    required: ["message"]
  },
  async execute(input: { message: string }) {
    return { message: input.message };
  }
});
