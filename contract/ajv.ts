/**
 * One place that constructs ajv instances for a JSON Schema dialect (ajv and ajv-formats are
 * CommonJS; under NodeNext their classes are the modules' `default` export).
 */
import Ajv2019Module from "ajv/dist/2019.js";
import Ajv2020Module from "ajv/dist/2020.js";
import AjvDraft07Module, { type Options, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import type { SchemaDialect } from "./dialects.js";

// The dialects' `$schema` addresses live in ./dialects.ts (no ajv there: the runtime reads them
// without loading ajv); re-exported for the compiler's modules that set up ajv anyway.
export { CANONICAL_SCHEMA_URIS, DIALECT_URIS, dialectOfUri, withCanonicalSchemaUri, type SchemaDialect } from "./dialects.js";

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

/** ajv's standalone code generator: one function, or a map of export name → reference. */
export type StandaloneCode = (ajv: AjvInstance, refsOrFunc: Record<string, string> | ValidateFunction) => string;

/**
 * ajv's standalone code generator (`ajv/dist/standalone`), loaded when first asked: it writes a
 * compiled validator out as a CommonJS module, the very function `ajv.compile` built (the ajv
 * instance needs `code: { source: true }`). Used for the toolchain's fixed schemas at build time
 * (`./precompiled-validators.ts`) and for the agent's input schemas at run time
 * (`./validator-code-cache.ts`).
 */
export async function loadStandaloneCode(): Promise<StandaloneCode> {
  return ((await import("ajv/dist/standalone/index.js")) as unknown as { default: { default: StandaloneCode } }).default.default;
}
