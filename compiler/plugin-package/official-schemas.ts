/**
 * The official Agent Plugins 1.0.0 JSON Schemas (`schemas/agent-plugins/1.0.0/`, Apache-2.0),
 * compiled once with ajv (2020-12) and exposed as plain validation issues.
 *
 * The schemas ship with the product and are read from disk at first use; nothing is fetched
 * (Agent Plugins v1 §5.2). `mcp.json` is validated per server against the variant that the
 * entry's `type` selects (`#/$defs/stdioServer`, …), which keeps the per-server failure boundary
 * of §7.2.2. No ajv object leaves this module: callers get {@link SchemaIssue} data and map it to
 * catalog diagnostics themselves.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import type { ErrorObject, ValidateFunction } from "ajv";
import { createAjv } from "../../contract/ajv.js";
import { fixedValidators, type FixedSchemaSpec } from "../../contract/precompiled-validators.js";
import type { JsonValue } from "../../common/json-value.js";
import type { SchemaError } from "../../diagnostics/schema-error-words.js";

/** Where the schemas live, relative to the package root of the toolchain. */
export const SCHEMA_DIRECTORY = "schemas/agent-plugins/1.0.0";

/**
 * One schema violation, as plain data (ajv's `ErrorObject` without the ajv types): the shape
 * that diagnostics/schema-error-words.ts puts into words.
 */
export type SchemaIssue = SchemaError;

/** A server variant of `mcp.json` (Agent Plugins v1 §7.2.1). */
export type McpServerVariant = "stdio" | "streamable-http" | "sse";

interface Validators {
  readonly manifest: ValidateFunction;
  readonly servers: Readonly<Record<McpServerVariant, ValidateFunction>>;
}

let compiled: Validators | undefined;

/** Where the 1.1.0 draft manifest schema lives (`schemas/agent-plugins/1.1.0/SOURCE.md`). */
export const DRAFT_1_1_SCHEMA = "schemas/agent-plugins/1.1.0/plugin.schema.json";

let draftManifest: ValidateFunction | undefined;

/**
 * Validates a parsed `plugin.json` against the `plugin.schema.json` of its Agent Plugins
 * `version` (all errors): the official 1.0.0 schema, or the 1.1.0 draft schema.
 */
export function validateManifestSchema(value: JsonValue, version = "1.0.0"): SchemaIssue[] {
  const validate = version === "1.1.0" ? draftManifestValidator() : validators().manifest;
  return validate(value) ? [] : toIssues(validate.errors);
}

function draftManifestValidator(): ValidateFunction {
  if (draftManifest) return draftManifest;
  const file = path.join(path.dirname(locateSchemaDirectory()), "1.1.0", "plugin.schema.json");
  const schema = JSON.parse(fs.readFileSync(file, "utf8")) as object;
  draftManifest = createAjv("2020-12", { allErrors: true, strict: true, validateSchema: false }, { formats: false }).compile(schema);
  return draftManifest;
}

/** Validates one `mcpServers` member against the variant its `type` selects (all errors). */
export function validateMcpServerSchema(variant: McpServerVariant, value: JsonValue): SchemaIssue[] {
  const validate = validators().servers[variant];
  return validate(value) ? [] : toIssues(validate.errors);
}

/** Reads one of the shipped schema files (for tools that want the schema itself, e.g. an editor). */
export function readOfficialSchema(name: "plugin.schema.json" | "mcp.schema.json"): JsonValue {
  return JSON.parse(fs.readFileSync(path.join(locateSchemaDirectory(), name), "utf8")) as JsonValue;
}

/**
 * The ajv setup of the official 1.0.0 schemas (`plugin.schema.json` and `mcp.schema.json` with
 * its three server variants), precompiled at build time (`contract/precompiled-validators.ts`).
 */
export function officialSchemaSpec(): FixedSchemaSpec {
  const plugin = readOfficialSchema("plugin.schema.json") as { $id: string };
  const mcp = readOfficialSchema("mcp.schema.json") as { $id: string };
  return {
    name: "agent-plugins-1.0.0",
    dialect: "2020-12",
    // The shipped schemas are fixed (test/perf-cache checks them against the meta-schema):
    // not validating them again here saves compiling the 2020-12 meta-schema on every run.
    options: { allErrors: true, strict: true, validateSchema: false },
    formats: false,
    schemas: () => [plugin, mcp],
    exports: {
      manifest: plugin.$id,
      stdio: `${mcp.$id}#/$defs/stdioServer`,
      streamableHttp: `${mcp.$id}#/$defs/streamableHttpServer`,
      sse: `${mcp.$id}#/$defs/sseServer`,
    },
  };
}

function validators(): Validators {
  if (compiled) return compiled;
  const { get } = fixedValidators(officialSchemaSpec());
  compiled = {
    get manifest() {
      return get("manifest");
    },
    servers: {
      get stdio() {
        return get("stdio");
      },
      get "streamable-http"() {
        return get("streamableHttp");
      },
      get sse() {
        return get("sse");
      },
    },
  };
  return compiled;
}

function toIssues(errors: readonly ErrorObject[] | null | undefined): SchemaIssue[] {
  return (errors ?? []).map((error) => ({
    keyword: error.keyword,
    instancePath: error.instancePath,
    params: error.params as Record<string, unknown>,
    message: error.message ?? error.keyword,
  }));
}

/**
 * Finds `schemas/agent-plugins/1.0.0` by walking up from this module: the same code runs from
 * the sources (`compiler/plugin-package/`) and from the build (`dist/compiler/plugin-package/`).
 * A missing directory is a broken installation, not bad user input, so it throws.
 */
function locateSchemaDirectory(): string {
  let directory = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = path.join(directory, SCHEMA_DIRECTORY);
    if (fs.existsSync(path.join(candidate, "plugin.schema.json"))) return candidate;
    directory = path.dirname(directory);
  }
  throw new Error(`Assembly Line is installed without ${SCHEMA_DIRECTORY}/ (the official Agent Plugins schemas).`);
}
