/**
 * The one judge of a schema (issue 8: "one ajv setup"): the meta-schema check of its dialect,
 * then the strict-mode compile, with the ajv instances of `contract/ajv.ts`. The main thread
 * (`schema-compiler.ts`) and the worker thread (`schema-worker-thread.ts`) both import it, so a
 * verdict never depends on which thread computed it.
 */
import type { ErrorObject, Options } from "ajv";
import { CANONICAL_SCHEMA_URIS, createAjv, withCanonicalSchemaUri, type AjvInstance, type SchemaDialect } from "../../contract/ajv.js";
import type { JsonObject } from "../../common/json-value.js";
import type { MetaSchemaError, SchemaVerdict } from "./schema-verdict.js";
import { withoutVendorKeywords } from "./vendor-keywords.js";
import { certainlyAccepted, type AjvRule, type AjvTables } from "./schema-precheck.js";

/**
 * The options of every compile-time ajv instance: strict mode, union types allowed
 * (`type: ["string", "null"]` is plain JSON Schema), all errors, nothing added to the instance
 * by a compile, no code optimisation (we only need to know the schema compiles; the runtime
 * compiles its own optimised validators).
 */
export const COMPILE_TIME_AJV_OPTIONS: Options = { strict: true, allowUnionTypes: true, allErrors: true, addUsedSchema: false, code: { optimize: false } };

/**
 * Options of the instances that only compile: the schema was validated against its
 * meta-schema (with {@link COMPILE_TIME_AJV_OPTIONS}) first, so the compile does not do it again.
 * `addUsedSchema` is on because ajv resolves a `$ref: "#"` (a recursive schema) only through
 * the schema it registered under `""`; {@link judgeSchema} removes it again after each compile.
 */
const COMPILE_ONLY_OPTIONS: Options = { ...COMPILE_TIME_AJV_OPTIONS, validateSchema: false, addUsedSchema: true };

const metaInstances = new Map<SchemaDialect, AjvInstance>();
const compileInstances = new Map<SchemaDialect, AjvInstance>();

/** How `$id` appears in a schema's JSON text (a property named `$id` matches too: harmless). */
const ID_KEY = '"$id"';

function sharedInstance(instances: Map<SchemaDialect, AjvInstance>, dialect: SchemaDialect, options: Options): AjvInstance {
  let ajv = instances.get(dialect);
  if (!ajv) {
    ajv = createAjv(dialect, options);
    instances.set(dialect, ajv);
  }
  return ajv;
}

/** The keywords ajv knows for `dialect` (what strict mode accepts), by name. */
export function knownKeywords(dialect: SchemaDialect): Readonly<Record<string, unknown>> {
  return tablesOf(dialect).keywords;
}

/** The formats ajv knows for `dialect` (what strict mode accepts in `format`), by name. */
export function knownFormats(dialect: SchemaDialect): Readonly<Record<string, unknown>> {
  return tablesOf(dialect).formats;
}

const tables = new Map<SchemaDialect, AjvTables>();

/** What {@link certainlyAccepted} reads from the shared instance of `dialect` (read once; exported for tests). */
export function tablesOf(dialect: SchemaDialect): AjvTables {
  let found = tables.get(dialect);
  if (!found) {
    const ajv = sharedInstance(metaInstances, dialect, COMPILE_TIME_AJV_OPTIONS);
    const rules = (ajv as unknown as { RULES: { keywords: Record<string, unknown>; all: Record<string, AjvRule | boolean> } }).RULES;
    const formats = ajv.formats as Record<string, unknown>;
    const regex = formats["regex"];
    found = {
      keywords: rules.keywords,
      rules: Object.values(rules.all).filter((rule): rule is AjvRule => typeof rule === "object"),
      formats,
      isRegex: typeof regex === "function" ? (source) => (regex as (s: string) => boolean)(source) : () => false,
      canonicalSchemaUri: CANONICAL_SCHEMA_URIS[dialect],
    };
    tables.set(dialect, found);
  }
  return found;
}

/** The verdict on a schema ajv accepts. */
export const ACCEPTED: SchemaVerdict = { metaErrors: null, compileError: null };

/**
 * True when `written` is certainly accepted by ajv in `dialect` without asking ajv
 * (`schema-precheck.ts`): then {@link judgeSchema} returns the accepting verdict at once.
 */
export function acceptedWithoutAjv(dialect: SchemaDialect, written: JsonObject): boolean {
  try {
    return certainlyAccepted(withCanonicalSchemaUri(withoutVendorKeywords(written, dialect), dialect), tablesOf(dialect));
  } catch {
    return false;
  }
}

/**
 * Judges `schema` on this thread: meta-schema check with the shared instance of `dialect`,
 * then (when valid) the strict compile. A schema the precheck proves acceptable
 * (`schema-precheck.ts`) gets the accepting verdict without generating validator code; every
 * other one goes to ajv ({@link judgeWithAjv}), so each verdict is the one ajv gives. Never
 * throws. Vendor keywords (`x-…`) are removed first: they are annotations, and strict mode
 * would refuse them (`vendor-keywords.ts`).
 */
export function judgeSchema(dialect: SchemaDialect, written: JsonObject, text = JSON.stringify(written)): SchemaVerdict {
  const schema = withCanonicalSchemaUri(withoutVendorKeywords(written, dialect), dialect);
  try {
    if (certainlyAccepted(schema, tablesOf(dialect))) return ACCEPTED;
  } catch {
    // Not proven: ajv judges it.
  }
  return ajvVerdict(dialect, schema, text);
}

/**
 * ajv's own verdict, always computed by ajv (what {@link judgeSchema} did before the
 * precheck; kept for the tests that compare the two). A schema that declares an `$id`
 * anywhere is compiled by a fresh instance: ajv remembers nested `$id`s in the instance, and
 * one plugin's schema must not change how another's compiles. A root `$schema` that names
 * `dialect` in another spelling is read as the canonical one (ajv resolves only that). Never
 * throws: whatever ajv throws becomes `compileError`.
 */
export function judgeWithAjv(dialect: SchemaDialect, written: JsonObject, text = JSON.stringify(written)): SchemaVerdict {
  return ajvVerdict(dialect, withCanonicalSchemaUri(withoutVendorKeywords(written, dialect), dialect), text);
}

function ajvVerdict(dialect: SchemaDialect, schema: JsonObject, text: string): SchemaVerdict {
  try {
    const meta = sharedInstance(metaInstances, dialect, COMPILE_TIME_AJV_OPTIONS);
    if (!meta.validateSchema(schema)) return { metaErrors: (meta.errors ?? []).map(toMetaSchemaError), compileError: null };
  } catch (error) {
    return { metaErrors: null, compileError: messageOf(error) };
  }
  const fresh = text.includes(ID_KEY);
  const ajv = fresh ? createAjv(dialect, COMPILE_ONLY_OPTIONS) : sharedInstance(compileInstances, dialect, COMPILE_ONLY_OPTIONS);
  try {
    ajv.compile(schema);
    return { metaErrors: null, compileError: null };
  } catch (error) {
    return { metaErrors: null, compileError: messageOf(error) };
  } finally {
    // The shared instance would keep every compiled schema; without an `$id` this drops it
    // from ajv's cache and from the `""` key `addUsedSchema` registered it under.
    if (!fresh) {
      ajv.removeSchema(schema);
      ajv.removeSchema("");
    }
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function toMetaSchemaError(error: ErrorObject): MetaSchemaError {
  const allowed = (error.params as { allowedValues?: unknown[] }).allowedValues;
  return { instancePath: error.instancePath, keyword: error.keyword, message: error.message, allowedValues: Array.isArray(allowed) ? allowed : undefined };
}
