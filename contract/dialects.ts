/**
 * The JSON Schema dialects the toolchain understands and the `$schema` addresses that select
 * them: plain tables, without ajv, so the runtime can tell a locked schema's dialect without
 * loading ajv (`runtime-min/execution/validate-input.ts`, issue 14 item 3). `./ajv.ts` sets up
 * ajv per dialect and re-exports these.
 */

/** A JSON Schema dialect the toolchain understands. */
export type SchemaDialect = "draft-07" | "2019-09" | "2020-12";

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
