/**
 * The statically inspected entry of the support-tools plugin. Each descriptor repeats what
 * its implementation's defineTool() says; the compiler checks that they agree.
 */
export default {
  tools: {
    record_note: {
      definition: "./ai.assemblyline/record-note.ts",
      description: "Record a durable note.",
      inputSchema: {
        type: "object",
        properties: { note: { type: "string" } },
        required: ["note"]
      },
      needsApproval: { reason: "Recording a note is a durable side effect.", sideEffect: "idempotent" }
    },
    hydrate_customer: {
      definition: "./ai.assemblyline/hydrate-customer.ts",
      description: "Hydrate a customer profile once per run.",
      inputSchema: {
        type: "object",
        properties: { customerId: { type: "string" } },
        required: ["customerId"]
      },
      visibility: "deferred",
      tags: ["crm", "customer"]
    },
    lookup_record: {
      definition: "./ai.assemblyline/lookup-record.ts",
      description: "Look up a record and return a safe summary.",
      inputSchema: {
        type: "object",
        properties: { lookup: { type: "string" } },
        required: ["lookup"]
      }
    },
    accept_document: {
      definition: "./ai.assemblyline/accept-document.ts",
      description: "Accept a complete document.",
      inputSchema: { type: "object", properties: { document: { type: "string" } }, required: ["document"] }
    }
  }
} as const;
