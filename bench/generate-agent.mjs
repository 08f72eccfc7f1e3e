/**
 * Generates a synthetic agent for benchmarks: `plugins` local plugins × `tools` tools each,
 * every tool with its own descriptor, inputSchema and defineTool() definition module (so the
 * drift check and the factory check have real work).
 *
 * Two shapes:
 *  - `generateAgent(dir, { plugins: 200, tools: 10 })` (the default, `full: false`): the plain
 *    shape the per-issue benches have always measured (compile.mjs, providers.mjs, lsp.mjs,
 *    editor.mjs), unchanged so their figures stay comparable across versions;
 *  - `generateAgent(dir, { plugins, tools, full: true })`: what a real agent has
 *    (examples/support-agent, docs/agents.md), used by the size scan (bench/scale.mjs) — see
 *    {@link generateFullAgent}.
 *
 * Both compile clean (no diagnostics); `test/bench/generate-agent.test.ts` checks it.
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

/**
 * Writes the agent under `dir` (created; must not exist or be empty). Returns the file count.
 * `full: true` writes the realistic shape ({@link generateFullAgent}).
 */
export function generateAgent(dir, { plugins = 200, tools = 10, full = false } = {}) {
  if (full) return generateFullAgent(dir, { plugins, tools });
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

/** Where plugin `p` of a full agent lives: every tenth plugin belongs to a subagent. */
function surfaceOf(p) {
  return p % 10 === 9 ? `team-${String(Math.floor(p / 100)).padStart(2, "0")}` : ".";
}

/**
 * Plugin `p`'s configSchema: one required setting the agent gives, one optional. Each plugin's
 * differs (its `pageSize` maximum), as the plugins of a real agent do: the compiler shares one
 * validator between equal configSchemas (`compiler/config/validate-config.ts`), and a scan of
 * plugins that all declared one schema would measure that sharing, not an agent.
 */
function configSchemaFor(p) {
  return {
    type: "object",
    properties: { region: { type: "string", minLength: 2 }, pageSize: { type: "integer", minimum: 1, maximum: 500 + p } },
    required: ["region"],
    additionalProperties: false,
  };
}

/** The approval policy of tool 1 of every plugin (descriptor and defineTool() say the same). */
const APPROVAL = { reason: "Writes a durable record.", sideEffect: "idempotent" };

/** One tool of plugin `p`: its descriptor fields (without `definition`) and its kind. */
function fullTool(p, t) {
  const word = WORDS[t % WORDS.length];
  const kind = t === 0 ? "factory" : t === 1 ? "approval" : t % 3 === 2 ? "deferred" : "plain";
  const descriptor = {
    description: `Generated tool ${t} of plugin ${p}: ${kind === "approval" ? "records" : "searches"} the ${word} records.`,
    inputSchema: schemaFor(p, t),
    ...(kind === "factory" ? { factory: "createTool", config: { pageSize: 10 + t } } : {}),
    ...(kind === "approval" ? { needsApproval: APPROVAL } : {}),
    ...(kind === "deferred" ? { visibility: "deferred", aliases: [`find ${word} ${p}`], namespace: `ns${p % 7}` } : {}),
  };
  return { name: `p${p}_tool_${t}`, kind, descriptor };
}

/** A JSON value as TypeScript source, indented by `pad` after the first line. */
const literal = (value, pad) => JSON.stringify(value, null, 2).replace(/\n/g, `\n${pad}`);

/** The definition module of one tool: imports the authoring API, the plugin's helper and the tool's prompt asset. */
function definitionSource(tool, t) {
  const { description, inputSchema } = tool.descriptor;
  const fields = [`description: ${JSON.stringify(description)}`, `inputSchema: ${literal(inputSchema, "    ")}`];
  if (tool.kind === "approval") fields.push(`needsApproval: approvalRequired(${JSON.stringify(APPROVAL.reason)}, ${JSON.stringify(APPROVAL.sideEffect)})`);
  const imports = [
    `import { ${tool.kind === "approval" ? "approvalRequired, " : ""}defineTool } from "@assemblyline-agents/core";`,
    `import { summarize } from "./lib/summarize.js";`,
    `import prompt from "./prompts/tool-${t}.md";`,
  ];
  const execute = `async execute(input: Record<string, unknown>${tool.kind === "approval" ? ", ctx" : ""}) {\n      ${tool.kind === "approval" ? `await ctx.emit("record.written", { key: ctx.idempotencyKey("write") });\n      ` : ""}return { tool: ${JSON.stringify(tool.name)}, summary: summarize(prompt, input) };\n    }`;
  if (tool.kind === "factory") {
    return `${imports.join("\n")}\n\n/** The merged config: the descriptor's pageSize and the agent's region. */\nexport interface ToolConfig {\n  readonly region: string;\n  readonly pageSize: number;\n}\n\nexport function createTool(config: ToolConfig) {\n  return defineTool({\n    ${fields.join(",\n    ")},\n    async execute(input: Record<string, unknown>) {\n      return { tool: ${JSON.stringify(tool.name)}, region: config.region, pageSize: config.pageSize, summary: summarize(prompt, input) };\n    }\n  });\n}\n`;
  }
  return `${imports.join("\n")}\n\nexport default defineTool({\n  ${fields.map((f) => f.replace(/\n  /g, "\n")).join(",\n  ")},\n  ${execute.replace(/\n    /g, "\n  ")}\n});\n`;
}

/**
 * The realistic shape, modelled on examples/support-agent and docs/agents.md: every plugin has
 * an `ai.assemblyline` entry written with `defineAssemblyLinePlugin` (a configSchema the agent's
 * config satisfies, and the plugin's tags imported from a neighbouring const module), tools of
 * four kinds in turn (a factory with descriptor config, an approval gate, deferred tools with
 * aliases and a namespace, plain tools), definition modules that import a helper module and a
 * Markdown prompt asset, and a skill. Every tenth plugin lives in a subagent
 * (`subagents/team-NN/`, ten plugins each at most), and the root and every subagent have a
 * skill of their own. Returns the file count.
 */
export function generateFullAgent(dir, { plugins = 200, tools = 10 } = {}) {
  let files = 0;
  const write = (relative, text) => {
    const target = path.join(dir, relative);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, text);
    files++;
  };
  const surfaces = new Map([[".", []]]);
  for (let p = 0; p < plugins; p++) {
    const key = `plugin-${String(p).padStart(4, "0")}`;
    const surface = surfaceOf(p);
    if (!surfaces.has(surface)) surfaces.set(surface, []);
    surfaces.get(surface).push({ key, p });
    const root = surface === "." ? `plugins/${key}` : `subagents/${surface}/plugins/${key}`;
    write(`${root}/plugin.json`, JSON.stringify({ $schema: "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", name: key, version: `1.${p % 5}.0`, description: `Generated plugin ${p}.` }, null, 2) + "\n");
    write(`${root}/ai.assemblyline/tags.ts`, `export const TAGS = ["generated", ${JSON.stringify(WORDS[p % WORDS.length])}] as const;\n`);
    write(`${root}/ai.assemblyline/lib/summarize.ts`, `/** A short, model-safe summary of the input, led by the tool's prompt. */\nexport function summarize(prompt: string, input: Record<string, unknown>): string {\n  return \`\${prompt.split("\\n")[0]} \${JSON.stringify(input).slice(0, 200)}\`;\n}\n`);
    const descriptors = [];
    for (let t = 0; t < tools; t++) {
      const tool = fullTool(p, t);
      const fields = Object.entries({ definition: `./ai.assemblyline/tool-${t}.ts`, ...tool.descriptor }).map(([k, v]) => `      ${k}: ${literal(v, "      ")}`);
      fields.push("      tags: TAGS");
      descriptors.push(`    ${tool.name}: {\n${fields.join(",\n")}\n    }`);
      write(`${root}/ai.assemblyline/tool-${t}.ts`, definitionSource(tool, t));
      write(`${root}/ai.assemblyline/prompts/tool-${t}.md`, `Answer with the ${WORDS[t % WORDS.length]} records of plugin ${p}.\n\nKeep the reply short and cite the record ids.\n`);
    }
    write(
      `${root}/ai.assemblyline/index.ts`,
      `import { defineAssemblyLinePlugin } from "@assemblyline-agents/core";\nimport { TAGS } from "./tags.js";\n\nexport default defineAssemblyLinePlugin({\n  configSchema: ${literal(configSchemaFor(p), "  ")},\n  tools: {\n${descriptors.join(",\n")}\n  }\n});\n`,
    );
    write(`${root}/skills/${key}-guide/SKILL.md`, `---\nname: ${key}-guide\ndescription: When to use the tools of ${key} and in which order.\n---\n\n# ${key}\n\nStart with \`p${p}_tool_0\`; \`p${p}_tool_1\` needs approval.\n`);
  }
  for (const [surface, members] of surfaces) {
    const base = surface === "." ? "" : `subagents/${surface}/`;
    const name = surface === "." ? "generated-agent" : surface;
    const capabilities = members.map(({ key, p }) => `  ${key}:\n    config:\n      region: region-${p % 13}`).join("\n");
    write(`${base}agent.md`, `---\nname: ${name}\ndescription: A generated ${surface === "." ? "agent" : "subagent"} for benchmarks.\ncapabilities:${members.length === 0 ? " {}" : `\n${capabilities}`}\n---\n\nA generated ${surface === "." ? "agent" : "subagent"} for benchmarks.\n`);
    write(`${base}skills/${name}-handbook/SKILL.md`, `---\nname: ${name}-handbook\ndescription: How ${name} works with its tools.\n---\n\n# ${name}\n\nUse the tools of the selected plugins.\n`);
  }
  return files;
}
