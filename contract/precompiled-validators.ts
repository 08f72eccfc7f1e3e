/**
 * ajv validators of the toolchain's own fixed schemas, compiled to JavaScript at build time
 * (issue 14 item 1). Compiling a schema with ajv generates and evaluates validator code; for
 * the schemas every compile checks — `plugin.json` and `mcp.json` (the official Agent Plugins
 * 1.0.0 schemas), the entry descriptor (`schemas/assemblyline-entry.schema.json`) and
 * `plugins.lock` — that cost (about 60–80 ms of CPU per compile, on the main thread) was paid
 * on every run although the schemas never change between builds.
 *
 * A {@link FixedSchemaSpec} says how its ajv instance is built (dialect, options, schemas) and
 * which validators it exports. `npm run build` (`scripts/build-precompiled-validators.mjs`)
 * writes each spec's validators with ajv's own standalone code generator (`ajv/dist/standalone`)
 * to `dist/contract/precompiled/<name>.cjs`: the very functions `ajv.compile` would build from
 * the same instance, so verdicts and errors are the same. {@link fixedValidators} loads that
 * file when its fingerprint (SHA-256 of ajv's version, the options and the schemas' JSON text)
 * is the spec's current one, and otherwise compiles at run time as before: from the sources
 * (tests), after a schema changed without a rebuild, or when the file is missing or broken.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import type { Options, ValidateFunction } from "ajv";
import { createAjv, loadStandaloneCode, type AjvInstance, type SchemaDialect } from "./ajv.js";

/** How to build the ajv instance of a set of fixed schemas, and which validators it exports. */
export interface FixedSchemaSpec {
  /** File name of the precompiled module (`<name>.cjs`): letters, digits and `-`. */
  readonly name: string;
  readonly dialect: SchemaDialect;
  readonly options: Options;
  /** Whether ajv-formats' formats are added (as `createAjv`'s `formats`). */
  readonly formats: boolean;
  /**
   * The schemas (read when asked). One schema is compiled with `ajv.compile`; several are added
   * in this order (each with an `$id`) and their validators taken by reference.
   */
  schemas(): readonly object[];
  /**
   * Exported name → the schema reference ajv resolves (an `$id`, or `$id#/$defs/x`). With one
   * schema: a single export, whose reference is ignored (the compiled schema itself).
   */
  readonly exports: Readonly<Record<string, string>>;
}

/** Where a spec's validators came from (for tests and benchmarks). */
export type ValidatorSource = "precompiled" | "compiled";

/** The loaded validators of one spec. */
export interface FixedValidators {
  readonly get: (name: string) => ValidateFunction;
  readonly source: ValidatorSource;
}

const require = createRequire(import.meta.url);

/** The folder of the precompiled modules, next to this module (`dist/contract/precompiled`). */
const DEFAULT_DIRECTORY = "./precompiled";

/**
 * The fingerprint a precompiled module must carry to be used for `spec`: SHA-256 over ajv's
 * version, the dialect, the options, whether formats are added, the schemas' JSON text and the
 * exports. Anything that could change the generated code changes it.
 */
export function fixedSchemaFingerprint(spec: FixedSchemaSpec): string {
  const ajvVersion = (require("ajv/package.json") as { version: string }).version;
  return createHash("sha256")
    .update(JSON.stringify([ajvVersion, spec.dialect, spec.options, spec.formats, spec.schemas(), spec.exports]))
    .digest("hex");
}

/**
 * The validators of `spec`: the precompiled ones when `directory` (default: next to this
 * module) holds a module with the current fingerprint, else compiled now with ajv. Never fails
 * because of the precompiled file: a missing, stale or broken one means compiling.
 */
export function fixedValidators(spec: FixedSchemaSpec, directory = DEFAULT_DIRECTORY): FixedValidators {
  const loaded = loadPrecompiled(spec, directory);
  if (loaded) return { get: (name) => loaded[name]!, source: "precompiled" };
  let compiled: Readonly<Record<string, ValidateFunction>> | undefined;
  return {
    get: (name) => {
      compiled ??= compileValidators(spec, {}).validators;
      const validate = compiled[name];
      if (!validate) throw new Error(`The fixed schema set '${spec.name}' has no validator '${name}'.`);
      return validate;
    },
    source: "compiled",
  };
}

function loadPrecompiled(spec: FixedSchemaSpec, directory: string): Record<string, ValidateFunction> | undefined {
  try {
    const file = directory.startsWith(".") ? fileURLToPath(new URL(`${directory}/${spec.name}.cjs`, import.meta.url)) : path.join(directory, `${spec.name}.cjs`);
    // Run as a CommonJS module whose `require` is this module's, so the ajv runtime helpers the
    // code requires (`ajv/dist/runtime/…`) resolve from the toolchain wherever the file is.
    const module = { exports: {} as Record<string, unknown> };
    new Function("module", "exports", "require", fs.readFileSync(file, "utf8"))(module, module.exports, require);
    const exported = module.exports as { fingerprint?: unknown } & Record<string, unknown>;
    if (exported.fingerprint !== fixedSchemaFingerprint(spec)) return undefined;
    const validators: Record<string, ValidateFunction> = {};
    for (const name of Object.keys(spec.exports)) {
      const validate = exported[name];
      if (typeof validate !== "function") return undefined;
      validators[name] = validate as ValidateFunction;
    }
    return validators;
  } catch {
    return undefined;
  }
}

/** Compiles `spec`'s validators with ajv (`extra` options merged in: the generator adds `code.source`). */
function compileValidators(spec: FixedSchemaSpec, extra: { readonly code?: Options["code"] }): { ajv: AjvInstance; validators: Record<string, ValidateFunction> } {
  const options: Options = extra.code ? { ...spec.options, code: { ...spec.options.code, ...extra.code } } : spec.options;
  const ajv = createAjv(spec.dialect, options, { formats: spec.formats });
  const schemas = spec.schemas();
  const names = Object.keys(spec.exports);
  if (schemas.length === 1) {
    if (names.length !== 1) throw new Error(`The fixed schema set '${spec.name}' has one schema and must have one export.`);
    return { ajv, validators: { [names[0]!]: ajv.compile(schemas[0]!) } };
  }
  for (const schema of schemas) ajv.addSchema(schema);
  const validators: Record<string, ValidateFunction> = {};
  for (const name of names) {
    const validate = ajv.getSchema(spec.exports[name]!);
    if (!validate) throw new Error(`The fixed schema set '${spec.name}' has no '${spec.exports[name]!}'.`);
    validators[name] = validate;
  }
  return { ajv, validators };
}

/**
 * The source of `spec`'s precompiled module (CommonJS): ajv's standalone code of every export
 * (generated from the validators compiled as {@link fixedValidators} compiles them), then its
 * fingerprint. Used by `scripts/build-precompiled-validators.mjs` and by tests.
 */
export async function precompiledSource(spec: FixedSchemaSpec): Promise<string> {
  const standalone = await loadStandaloneCode();
  const { ajv, validators } = compileValidators(spec, { code: { source: true } });
  const names = Object.keys(validators);
  const fingerprint = JSON.stringify(fixedSchemaFingerprint(spec));
  if (spec.schemas().length === 1) {
    // ajv exports a single function as module.exports; wrap it under its name.
    return `${standalone(ajv, validators[names[0]!]!)}\nmodule.exports = { ${JSON.stringify(names[0])}: module.exports, fingerprint: ${fingerprint} };\n`;
  }
  return `${standalone(ajv, { ...spec.exports })}\nmodule.exports.fingerprint = ${fingerprint};\n`;
}
