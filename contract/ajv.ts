/**
 * One place that constructs ajv instances for a JSON Schema dialect (ajv and ajv-formats are
 * CommonJS; under NodeNext their classes are the modules' `default` export).
 */
import Ajv2019Module from "ajv/dist/2019.js";
import Ajv2020Module from "ajv/dist/2020.js";
import AjvDraft07Module, { type Options } from "ajv";
import addFormatsModule from "ajv-formats";

/** A JSON Schema dialect the toolchain understands. */
export type SchemaDialect = "draft-07" | "2019-09" | "2020-12";

/** The ajv class shared by all dialects (they differ only in vocabularies and meta-schema). */
export type AjvInstance = InstanceType<typeof Ajv2020Module.default>;

/**
 * A new ajv instance for `dialect`, with the standard formats (ajv-formats) added unless
 * `formats` is false (for the toolchain's own fixed schemas that use none: plugin.json, mcp.json,
 * plugins.lock). Every ajv of the toolchain and its runtime is made here (issue 8: one ajv setup).
 */
export function createAjv(dialect: SchemaDialect, options: Options, { formats = true }: { readonly formats?: boolean } = {}): AjvInstance {
  const instance =
    dialect === "draft-07"
      ? new AjvDraft07Module.default(options)
      : dialect === "2019-09"
        ? new Ajv2019Module.default(options)
        : new Ajv2020Module.default(options);
  if (formats) addFormatsModule.default(instance);
  return instance as AjvInstance;
}

/**
 * Every `$schema` spelling that selects a dialect, without a trailing `#` (JSON Schema Core
 * §8.1.1; the draft-07 meta-schema is published at both http and https addresses).
 */
export const DIALECT_URIS: ReadonlyMap<string, SchemaDialect> = new Map([
  ["http://json-schema.org/draft-07/schema", "draft-07"],
  ["https://json-schema.org/draft-07/schema", "draft-07"],
  ["https://json-schema.org/draft/2019-09/schema", "2019-09"],
  ["https://json-schema.org/draft/2020-12/schema", "2020-12"],
]);

/** The `$schema` under which ajv registers each dialect's meta-schema (the one it resolves). */
export const CANONICAL_SCHEMA_URIS: Readonly<Record<SchemaDialect, string>> = {
  "draft-07": "http://json-schema.org/draft-07/schema#",
  "2019-09": "https://json-schema.org/draft/2019-09/schema",
  "2020-12": "https://json-schema.org/draft/2020-12/schema",
};

/** The dialect a `$schema` URI names (a trailing `#` is ignored); `undefined` when unknown. */
export function dialectOfUri(uri: string): SchemaDialect | undefined {
  return DIALECT_URIS.get(uri.replace(/#$/, ""));
}

/**
 * `schema` ready for ajv: when its root `$schema` names `dialect` in another spelling
 * (`https://json-schema.org/draft-07/schema`), a shallow copy whose `$schema` is the
 * {@link CANONICAL_SCHEMA_URIS canonical} one, since ajv only resolves that; otherwise
 * `schema` itself. Never changes `schema`.
 */
export function withCanonicalSchemaUri<T extends Readonly<Record<string, unknown>>>(schema: T, dialect: SchemaDialect): T {
  const uri = schema["$schema"];
  if (typeof uri !== "string" || uri === CANONICAL_SCHEMA_URIS[dialect] || dialectOfUri(uri) !== dialect) return schema;
  return { ...schema, $schema: CANONICAL_SCHEMA_URIS[dialect] };
}
