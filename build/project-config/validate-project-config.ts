/**
 * Validates a loaded project configuration against `schemas/assembly-line.config.schema.json`
 * and the catalog (issue 10 item 5), and turns it into a {@link ProjectConfig} with absolute
 * paths. ajv's errors are mapped to AL9111 at the offending key or value, with the property
 * path and a "did you mean" for misspelt keys; `rules` must name catalog codes (AL9113) and may
 * not lower an error (AL9114, see `docs/configuration.md` for why).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { ErrorObject, ValidateFunction } from "ajv";
import { createAjv } from "../../contract/ajv.js";
import { didYouMeanHint } from "../../common/did-you-mean.js";
import { childPointer, valueAtPointer } from "../../common/json-pointer.js";
import { formatPropertyPath } from "../../common/property-path.js";
import { packagePath } from "../../common/package-root.js";
import { fileStart, type SourceLocation } from "../../common/positions.js";
import { locateValue, type LocatedValue } from "../../compiler/model.js";
import { Diagnostics, allDiagnosticMessages, diagnosticMessageFor } from "../../diagnostics/catalog/index.js";
import { createDiagnostic, sortDiagnostics, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { schemaErrorReason, schemaErrorTarget } from "../../diagnostics/schema-error-words.js";
import { shownFile, type HostPolicyDefaults, type ProjectConfig, type RuleSetting } from "./types.js";

/** Where the schema ships (also exported as `@assemblyline-agents/assembly-line/schemas/…`). */
export const PROJECT_CONFIG_SCHEMA_FILE = "assembly-line.config.schema.json";

/** Where the value came from, for locations. */
export interface ConfigSource {
  /** The parsed file with locations (JSON, YAML, package.json); absent for JavaScript/TypeScript. */
  readonly located?: LocatedValue;
  /** Pointer of the configuration inside `located` (`/assemblyLine` in package.json). */
  readonly pointerPrefix: string;
}

let validator: ValidateFunction | undefined;
let schemaKeys: Map<string, string[]> | undefined;

/**
 * Checks `value` (the configuration read from `file`).
 *
 * @returns the configuration (paths resolved against the folder of `file`), or the empty
 *   configuration and every problem found.
 */
export function validateProjectConfig(file: string, value: unknown, source: ConfigSource): { config: ProjectConfig; diagnostics: Diagnostic[] } {
  const validate = (validator ??= compileSchema());
  const at = (pointer: string, key = false): SourceLocation => {
    if (!source.located) return fileStart(file);
    const found = locateValue(source.located, source.pointerPrefix + pointer, fileStart(file));
    return key && found.key ? found.key : found.value;
  };
  const diagnostics: Diagnostic[] = [];
  if (!validate(value)) diagnostics.push(...mapSchemaErrors(shownFile(file), value, validate.errors ?? [], at));
  // In source order, not ajv's (new-user trial: 1:3, 1:63, 1:37).
  if (diagnostics.length > 0) return { config: { rules: {}, host: {} }, diagnostics: sortDiagnostics(dedupe(diagnostics)) };
  const raw = value as Record<string, unknown>;
  const rules = (raw["rules"] ?? {}) as Record<string, RuleSetting>;
  diagnostics.push(...checkRules(rules, at));
  if (diagnostics.length > 0) return { config: { rules: {}, host: {} }, diagnostics: sortDiagnostics(diagnostics) };
  const dir = path.dirname(file);
  const host = (raw["host"] ?? {}) as HostPolicyDefaults;
  const tokenBudget = raw["tokenBudget"] as ProjectConfig["tokenBudget"];
  const located = (pointers: readonly string[], key: boolean) => pointers.map((pointer) => [pointer, at(pointer, key)] as const);
  const locations = source.located
    ? Object.fromEntries([
        ...located(Object.keys(host).map((key) => childPointer("/host", key)), true),
        ...located(Array.isArray(raw["targets"]) ? raw["targets"].map((_, i) => `/targets/${i}`) : [], false),
        ...located(typeof tokenBudget === "object" ? Object.keys(tokenBudget).map((key) => childPointer("/tokenBudget", key)) : [], true),
      ])
    : undefined;
  const config: ProjectConfig = {
    file,
    rules,
    host,
    ...(raw["format"] !== undefined ? { format: raw["format"] as ProjectConfig["format"] & string } : {}),
    ...(typeof raw["outDir"] === "string" ? { outDir: path.resolve(dir, raw["outDir"]) } : {}),
    ...(typeof raw["maxWarnings"] === "number" ? { maxWarnings: raw["maxWarnings"] } : {}),
    ...(Array.isArray(raw["targets"]) ? { targets: raw["targets"] as string[] } : {}),
    ...(tokenBudget !== undefined ? { tokenBudget } : {}),
    ...(locations ? { locations } : {}),
  };
  return { config, diagnostics: [] };
}

function compileSchema(): ValidateFunction {
  const schema = JSON.parse(fs.readFileSync(packagePath("schemas", PROJECT_CONFIG_SCHEMA_FILE), "utf8")) as Record<string, unknown>;
  schemaKeys = new Map();
  const collect = (node: Record<string, unknown>, pointer: string): void => {
    const properties = node["properties"] as Record<string, Record<string, unknown>> | undefined;
    if (!properties) return;
    schemaKeys!.set(pointer, Object.keys(properties));
    for (const [key, child] of Object.entries(properties)) collect(child, childPointer(pointer, key));
  };
  collect(schema, "");
  return createAjv("2020-12", { allErrors: true, strict: false }).compile(schema);
}

function mapSchemaErrors(file: string, value: unknown, errors: readonly ErrorObject[], at: (pointer: string, key?: boolean) => SourceLocation): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const error of errors) {
    if (error.keyword === "propertyNames") continue; // reported by the 'pattern' error that names the key
    const target = schemaErrorTarget(error, value);
    // A missing property is named in the words, and reported at the object that lacks it.
    const shown = displayPath(error.keyword === "required" ? [...target.path, target.property!] : target.path);
    if (error.keyword === "additionalProperties") {
      const key = target.property!;
      const known = schemaKeys?.get(error.instancePath) ?? [];
      out.push(
        createDiagnostic(Diagnostics.ProjectConfigInvalid, at(target.pointer, true), [file, shown, "is not a known key"], {
          path: target.path,
          hint: didYouMeanHint(key, known) ?? (known.length > 0 ? `Known keys here: ${known.join(", ")}.` : `Remove '${key}'.`),
        }),
      );
    } else if (error.keyword === "pattern" && error.propertyName !== undefined) {
      out.push(createDiagnostic(Diagnostics.ProjectConfigInvalid, at(target.pointer, true), [file, shown, "is not a diagnostic code (AL and four digits, e.g. AL1015)"], { path: target.path }));
    } else {
      const found = valueAtPointer(value, error.instancePath);
      const words = schemaErrorReason(error, found);
      // A misspelt value of a fixed set (`format: "jsn"`): the nearest allowed one.
      const allowed = error.keyword === "enum" ? (error.params as { allowedValues?: unknown[] }).allowedValues?.filter((v): v is string => typeof v === "string") : undefined;
      const hint = allowed && typeof found === "string" ? didYouMeanHint(found, allowed) : undefined;
      out.push(createDiagnostic(Diagnostics.ProjectConfigInvalid, at(target.pointer, target.onKey), [file, shown, words], { path: target.path, ...(hint ? { hint } : {}) }));
    }
  }
  return out;
}

function checkRules(rules: Readonly<Record<string, RuleSetting>>, at: (pointer: string, key?: boolean) => SourceLocation): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const [code, setting] of Object.entries(rules)) {
    const pointer = childPointer("/rules", code);
    const entry = diagnosticMessageFor(code);
    if (!entry) {
      const hint = didYouMeanHint(code, allDiagnosticMessages().map((m) => m.code));
      out.push(createDiagnostic(Diagnostics.RuleUnknownCode, at(pointer, true), [code], { path: ["rules", code], ...(hint ? { hint } : {}) }));
    } else if (entry.severity === "error" && setting !== "error") {
      out.push(createDiagnostic(Diagnostics.RuleCannotLowerError, at(pointer), [code, setting], { path: ["rules", code] }));
    }
  }
  return out;
}

export { shownFile } from "./types.js";

/** `rules.AL1015`, or `(the configuration)` for the whole value. */
function displayPath(segments: readonly PropertyKey[]): string {
  return segments.length === 0 ? "(the configuration)" : formatPropertyPath(segments);
}

function dedupe(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return [...new Map(diagnostics.map((d) => [`${d.code}\0${d.path ?? ""}\0${d.message}`, d])).values()];
}
