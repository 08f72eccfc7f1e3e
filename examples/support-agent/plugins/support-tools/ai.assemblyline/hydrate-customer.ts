import { defineTool } from "@assemblyline-agents/core";

export default defineTool({
  description: "Hydrate a customer profile once per run.",
  inputSchema: {
    type: "object",
    properties: { customerId: { type: "string" } },
    required: ["customerId"]
  },
  async execute(input: { customerId: string }, ctx) {
    const profile = await ctx.step(
      `hydrate-customer:${input.customerId}`,
      async () => {
        const response = await fetch(`https://api.example.com/customers/${input.customerId}`, {
          headers: { "Idempotency-Key": ctx.idempotencyKey(`customer:${input.customerId}`) }
        });
        return response.json();
      },
      { metadata: { customerId: input.customerId } }
    );

    return { profile };
  }
});
