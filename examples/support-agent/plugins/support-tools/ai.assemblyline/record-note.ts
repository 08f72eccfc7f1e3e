import { approvalRequired, defineTool } from "@assemblyline-agents/core";

export default defineTool({
  description: "Record a durable note.",
  inputSchema: {
    type: "object",
    properties: { note: { type: "string" } },
    required: ["note"]
  },
  needsApproval: approvalRequired("Recording a note is a durable side effect.", "idempotent"),
  async execute(input: { note: string }, ctx) {
    await ctx.emit("note.recorded", {
      note: input.note,
      idempotencyKey: ctx.idempotencyKey("record-note")
    });
    return { recorded: true };
  }
});
