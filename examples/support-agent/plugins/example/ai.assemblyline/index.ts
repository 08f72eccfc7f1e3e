// plugins/example/ai.assemblyline/index.ts
export default {
  tools: {
    echo: {
      definition: "./ai.assemblyline/echo.ts",
      description: "Echo a message back to the caller.",
      inputSchema: {
        type: "object",
        properties: { message: { type: "string" } },
        required: ["message"]
      }
    }
  }
};
