/**
 * Checks an entry's statically evaluated value against the closed descriptor schema
 * `schemas/assemblyline-entry.schema.json` (DESIGN §3), mapping ajv's errors to our codes,
 * words, "did you mean" hints and source locations.
 */
import * as fs from "node:fs";
import type { ErrorObject, ValidateFunction } from "ajv";
import { fixedValidators, type FixedSchemaSpec } from "../../contract/precompiled-validators.js";
import { dedupeDiagnostics, createDiagnostic, type Diagnostic, type SourceLocation } from "../../diagnostics/diagnostic.js";
import { formatPropertyPath } from "../../common/property-path.js";
import { pointerToSegments, valueAtPointer } from "../../common/json-pointer.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { schemaErrorHint, schemaErrorReason, schemaErrorTarget } from "../../diagnostics/schema-error-words.js";
import type { JsonObject } from "../../common/json-value.js";
import { locateValue, type LocatedValue } from "../model.js";
import { packagePath } from "../../common/package-root.js";
import { didYouMean } from "../../common/did-you-mean.js";

let validator: ValidateFunction | undefined;
let schema: JsonObject | undefined;

/** The closed entry schema (also what editors use for completion). */
export function entrySchema(): JsonObject {
  schema ??= JSON.parse(fs.readFileSync(packagePath("schemas", "assemblyline-entry.schema.json"), "utf8")) as JsonObject;
  return schema;
}

/** The ajv setup of the entry schema, precompiled at build time (`contract/precompiled-validators.ts`). */
export const ENTRY_SCHEMA_SPEC: FixedSchemaSpec = {
  name: "assemblyline-entry",
  dialect: "2020-12",
  // ownProperties: a field named like an Object.prototype member is present only when written.
  // validateSchema: false: the shipped schema is checked against the 2020-12 meta-schema by
  // test/perf-cache/shipped-schemas.test.ts, not by compiling the meta-schema on every run.
  options: { allErrors: true, strict: false, ownProperties: true, validateSchema: false },
  formats: true,
  schemas: () => [entrySchema()],
  exports: { entry: "" },
};

function validate(value: unknown): readonly ErrorObject[] {
  validator ??= fixedValidators(ENTRY_SCHEMA_SPEC).get("entry");
  return validator(value) ? [] : (validator.errors ?? []);
}

/** Field names allowed on each kind of object, for "did you mean" hints. */
function allowedFields(pointer: string): string[] {
  const root = entrySchema();
  const defs = root["$defs"] as JsonObject;
  const descriptor = defs["toolDescriptor"] as JsonObject;
  const segments = pointer.split("/").slice(1);
  if (segments.length === 0) return Object.keys(root["properties"] as JsonObject);
  if (segments.length === 2 && segments[0] === "tools") return Object.keys(descriptor["properties"] as JsonObject);
  if (segments.length === 3 && segments[2] === "needsApproval") return ["reason", "sideEffect"];
  return [];
}

/**
 * The top-level entry fields that `value` leaves out but writes misspelt: for each unknown key
 * whose "did you mean" is a known field (`configschema` → `configSchema`), that field. Lets a
 * later stage tell a field that is absent from one whose AL4001 already names it.
 */
export function misspeltEntryFields(value: JsonObject): ReadonlySet<string> {
  const allowed = allowedFields("");
  const fields = new Set<string>();
  for (const key of Object.keys(value)) {
    const suggestion = allowed.includes(key) ? undefined : didYouMean(key, allowed);
    if (suggestion !== undefined && !Object.hasOwn(value, suggestion)) fields.add(suggestion);
  }
  return fields;
}

/** Words for the object at `pointer`: "the plugin entry", "tool 'echo'", … */
export function describeEntryObject(pointer: string): string {
  const segments = pointerToSegments(pointer);
  if (segments.length === 0) return "the plugin entry";
  if (segments[0] === "tools" && segments.length === 1) return "'tools'";
  if (segments[0] === "tools" && segments.length === 2) return `tool '${segments[1]}'`;
  if (segments[0] === "tools" && segments.length >= 3) return `'${segments.slice(2).join(".")}' of tool '${segments[1]}'`;
  return `'${segments.join(".")}'`;
}

/**
 * Validates the shape of an entry. Every error is reported (not only the first), each at the
 * key or value it concerns, with the property path.
 *
 * @param unreadable property paths the static analysis reported as unreadable (they were left
 *   out of `entry`), so that a required field written in a form the compiler cannot read is not
 *   also called missing.
 */
export function checkEntryShape(entry: LocatedValue<JsonObject>, fallback: SourceLocation, unreadable: readonly string[] = []): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const errors = validate(entry.value);
  const misspelt = misspeltFields(errors);
  for (const error of errors) {
    if (error.keyword === "if") continue;
    // A field the static analysis could not read is not "missing": its own diagnostic says why.
    if (error.keyword === "required" && wasUnreadable(error, entry.value, unreadable)) continue;
    // One mistake, one error (as tsc reports an excess property and not the missing one): a
    // required field missing where an unknown field is its near miss (`descripton`) is the
    // unknown field's AL4001, whose hint names it.
    if (error.keyword === "required" && misspelt.has(`${error.instancePath}\0${String(error.params["missingProperty"])}`)) continue;
    diagnostics.push(mapError(error, entry, fallback));
  }
  return dedupeDiagnostics(diagnostics);
}

/** `<object pointer>\0<field>` of each field an unknown field of the same object is a near miss of. */
function misspeltFields(errors: readonly ErrorObject[]): Set<string> {
  const fields = new Set<string>();
  for (const error of errors) {
    if (error.keyword !== "additionalProperties") continue;
    const suggestion = didYouMean(String(error.params["additionalProperty"]), allowedFields(error.instancePath));
    if (suggestion !== undefined) fields.add(`${error.instancePath}\0${suggestion}`);
  }
  return fields;
}

/** True when the missing property of a `required` error was dropped by the static analysis. */
function wasUnreadable(error: ErrorObject, value: JsonObject, unreadable: readonly string[]): boolean {
  const target = schemaErrorTarget(error, value);
  const field = formatPropertyPath([...target.path, target.property!]);
  return unreadable.some((p) => p === field || p.startsWith(`${field}.`) || p.startsWith(`${field}[`));
}

function mapError(error: ErrorObject, entry: LocatedValue<JsonObject>, fallback: SourceLocation): Diagnostic {
  const target = schemaErrorTarget(error, entry.value);
  const found = locateValue(entry, target.pointer, fallback);
  const location = (target.onKey ? found.key : undefined) ?? found.value;
  const path = target.path;
  switch (error.keyword) {
    case "additionalProperties": {
      const field = target.property!;
      const allowed = allowedFields(error.instancePath);
      const suggestion = didYouMean(field, allowed);
      return createDiagnostic(Diagnostics.EntryUnknownField, location, [field, describeEntryObject(error.instancePath)], {
        path,
        hint: suggestion ? `Did you mean '${suggestion}'?` : allowed.length > 0 ? `Known fields: ${allowed.join(", ")}.` : undefined,
      });
    }
    case "required":
      return createDiagnostic(Diagnostics.EntryMissingField, location, [capitalize(describeEntryObject(error.instancePath)), target.property!], { path });
    default: {
      const value = valueAtPointer(entry.value, error.instancePath);
      const hint = error.keyword === "enum" ? schemaErrorHint(error, value) : undefined;
      return createDiagnostic(Diagnostics.EntryFieldType, location, [formatPropertyPath(path), explain(error, value)], { path, ...(hint ? { hint } : {}) });
    }
  }
}

/**
 * The shared words ({@link schemaErrorReason}), except for the one pattern of the entry schema:
 * a tool name, explained in words rather than as a regular expression.
 */
function explain(error: ErrorObject, value: unknown): string {
  if (error.keyword === "pattern") return `must be a name of letters, digits and '_' that does not start with a digit, but it is ${JSON.stringify(value)}`;
  return schemaErrorReason(error, value);
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
