import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import { build } from "esbuild";
import { beforeAll, describe, expect, it } from "vitest";
import { repoRoot, tempDir } from "../helpers/temp-tree.js";
import { openuiPack } from "./helpers.js";

/** The fixture entry's default export, loaded by bundling it (tests only; the compiler never runs it). */
let entry: { configSchema: object; tools: Record<string, { definition: string; factory?: string }> };

beforeAll(async () => {
  const out = path.join(tempDir("al-openui-"), "entry.mjs");
  await build({
    entryPoints: [path.join(openuiPack, "ai.assemblyline/index.ts")],
    bundle: true,
    format: "esm",
    platform: "node",
    outfile: out,
    alias: { "@assemblyline-agents/core": path.join(repoRoot, "runtime-min/authoring/index.ts") },
    logLevel: "silent",
  });
  entry = ((await import(pathToFileURL(out).href)) as { default: typeof entry }).default;
});

const SEED_CONFIG = { brand: { name: "Example", theme: { background: "#F7F7F5", textBrand: "#1F2937", textAccentPrimary: "#2563EB" }, footer: "Example | Confidential" } };
const FULL_CONFIG = {
  brand: {
    name: "Example",
    legalName: "Example Holdings Ltd.",
    theme: { background: "#FFF", surface: "#F7F7F5", border: "#E5E7EB", textPrimary: "#111827", textSecondary: "#6B7280", textBrand: "#1F2937", textAccentPrimary: "#2563EBFF", fontFamily: "Inter, sans-serif", radius: "0.5rem" },
    logo: "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
    footer: "© Example Holdings Ltd.",
  },
};

describe("the OpenUI fixture pack", () => {
  it("is an Agent Plugins v1 package named openui inside the npm package @assemblyline-agents/openui@1.0.0", () => {
    const plugin = JSON.parse(fs.readFileSync(path.join(openuiPack, "plugin.json"), "utf8")) as Record<string, unknown>;
    const pkg = JSON.parse(fs.readFileSync(path.join(openuiPack, "package.json"), "utf8")) as Record<string, unknown>;
    expect(plugin).toMatchObject({ $schema: "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", name: "openui" });
    expect(pkg).toMatchObject({ name: "@assemblyline-agents/openui", version: "1.0.0" });
    for (const tool of Object.values(entry.tools)) {
      const source = fs.readFileSync(path.join(openuiPack, tool.definition), "utf8");
      expect(source).toContain('from "@assemblyline-agents/core"');
      if (tool.factory) expect(source).toContain(`export function ${tool.factory}(`);
    }
  });

  it("accepts the seed's brand config and a full one (legal name, theme tokens, data-URI logo, footer)", () => {
    const validate = new Ajv2020({ allErrors: true, strict: true }).compile(entry.configSchema);
    expect(validate(SEED_CONFIG), JSON.stringify(validate.errors)).toBe(true);
    expect(validate(FULL_CONFIG), JSON.stringify(validate.errors)).toBe(true);
  });

  it.each([
    ["an unknown brand property", { brand: { name: "Example", colour: "red" } }, "/brand", "additionalProperties"],
    ["an unknown theme token", { brand: { name: "Example", theme: { textBrnd: "#000000" } } }, "/brand/theme", "additionalProperties"],
    ["a theme token that is not a colour", { brand: { name: "Example", theme: { background: "blue" } } }, "/brand/theme/background", "pattern"],
    ["a logo URL instead of a data URI", { brand: { name: "Example", logo: "https://example.com/logo.png" } }, "/brand/logo", "pattern"],
    ["a missing name", { brand: { footer: "x" } }, "/brand", "required"],
    ["a config outside brand", { brand: { name: "Example" }, index: "x" }, "", "additionalProperties"],
  ])("refuses %s", (_name, config, instancePath, keyword) => {
    const validate = new Ajv2020({ allErrors: true, strict: true }).compile(entry.configSchema);
    expect(validate(config)).toBe(false);
    expect(validate.errors?.map((e) => [e.instancePath, e.keyword])).toContainEqual([instancePath, keyword]);
  });
});
