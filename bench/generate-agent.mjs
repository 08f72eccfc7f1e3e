/**
 * Generates a synthetic agent for benchmarks: `plugins` local plugins × `tools` tools each,
 * every tool with its own descriptor, inputSchema and defineTool() definition module (so the
 * drift check and the factory check have real work), plus a subagent.
 *
 * Usage as a module: `generateAgent(dir, { plugins: 200, tools: 10 })`.
 */
import * as fs from "node:fs";
import * as path from "node:path";

const WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima"];

function schemaFor(p, t) {
  const a = WORDS[(p + t) % WORDS.length];
  const b = WORDS[(p * 7 + t * 3) % WORDS.length];
  return {
    type: "object",
    properties: {
      [`${a}Query`]: { type: "string", description: `The ${a} query for tool ${t} of plugin ${p}.` },
      [`${b}Limit`]: { type: "integer", minimum: 1, maximum: 100 + t },
      mode: { enum: ["fast", "thorough", `mode${p}`] },
    },
    required: [`${a}Query`],
    additionalProperties: false,
  };
}

/** Writes the agent under `dir` (created; must not exist or be empty). Returns the file count. */
export function generateAgent(dir, { plugins = 200, tools = 10 } = {}) {
  let files = 0;
  const write = (relative, text) => {
    const target = path.join(dir, relative);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, text);
    files++;
  };
  const keys = [];
  for (let p = 0; p < plugins; p++) {
    const key = `plugin-${String(p).padStart(4, "0")}`;
    keys.push(key);
    write(`plugins/${key}/plugin.json`, JSON.stringify({ $schema: "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", name: key, version: "1.0.0", description: `Generated plugin ${p}.` }, null, 2) + "\n");
    const descriptors = [];
    for (let t = 0; t < tools; t++) {
      const name = `p${p}_tool_${t}`;
      const description = `Generated tool ${t} of plugin ${p}: searches the ${WORDS[t % WORDS.length]} records.`;
      const schema = JSON.stringify(schemaFor(p, t), null, 2).replace(/\n/g, "\n      ");
      descriptors.push(`    ${name}: {\n      definition: "./ai.assemblyline/tool-${t}.ts",\n      description: ${JSON.stringify(description)},\n      inputSchema: ${schema},\n      tags: ["generated", "${WORDS[p % WORDS.length]}"]\n    }`);
      write(
        `plugins/${key}/ai.assemblyline/tool-${t}.ts`,
        `import { defineTool } from "@assemblyline-agents/core";\n\nexport default defineTool({\n  description: ${JSON.stringify(description)},\n  inputSchema: ${JSON.stringify(schemaFor(p, t), null, 2).replace(/\n/g, "\n  ")},\n  async execute(input: Record<string, unknown>) {\n    return { tool: ${JSON.stringify(name)}, input };\n  }\n});\n`,
      );
    }
    write(`plugins/${key}/ai.assemblyline/index.ts`, `export default {\n  tools: {\n${descriptors.join(",\n")}\n  }\n} as const;\n`);
  }
  write("agent.md", `---\nname: generated-agent\ncapabilities:\n${keys.map((k) => `  ${k}: {}`).join("\n")}\n---\n\nA generated agent for benchmarks.\n`);
  return files;
}
