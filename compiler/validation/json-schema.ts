/**
 * Compile-time checks of the JSON Schemas a plugin declares: each tool's `inputSchema` and the
 * plugin's `configSchema` (issue 2 item 4; DESIGN §3).
 *
 * - The dialect is selected by `$schema` (draft-07, 2019-09 or 2020-12; 2020-12 when absent);
 *   nothing is fetched.
 * - The root must be `type: "object"` (model APIs take object arguments).
 * - The schema is checked against its dialect's meta-schema, then compiled by ajv in strict
 *   mode (`allowUnionTypes`, since `type: ["string", "null"]` is plain JSON Schema) by a
 *   {@link SchemaCompiler} (inline, or on a worker thread for large agents). ajv's errors are
 *   mapped to our codes, words and source locations, never echoed raw.
 * - Vendor keywords (`x-…`) are annotations: accepted at any depth, hidden from ajv, locked as
 *   written (`vendor-keywords.ts`); any other unknown keyword is an error with a did-you-mean.
 * - Nesting deeper than {@link MAX_SCHEMA_DEPTH} is refused before ajv sees it (a 2,000-deep
 *   schema must be a diagnostic, not a stack overflow).
 */
import { dialectOfUri, type SchemaDialect } from "../../contract/ajv.js";
import { inlineSchemaCompiler, knownFormats, knownKeywords, type MetaSchemaError, type SchemaCompileJob, type SchemaCompiler } from "./schema-compiler.js";
import { createDiagnostic, type Diagnostic, type SourceLocation } from "../../diagnostics/diagnostic.js";
import { pointerToSegmentsIn, escapePointerSegment, valueAtPointer } from "../../common/json-pointer.js";
import { describeSchemaType } from "../../diagnostics/json-kinds.js";
import { formatPropertyPath } from "../../common/property-path.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { isJsonObject, type JsonObject, type JsonValue } from "../../common/json-value.js";
import { locateValue, type LocatedValue } from "../model.js";
import { didYouMean, didYouMeanHint } from "../../common/did-you-mean.js";
import { walkSubschemas } from "./schema-walk.js";
import { SIMPLE_TYPES } from "./schema-precheck.js";
import { isVendorKeyword } from "./vendor-keywords.js";
import { defaultViolations } from "./schema-defaults.js";
import { withoutMistakes } from "./schema-repair.js";
import { schemaErrorHint, schemaErrorReason } from "../../diagnostics/schema-error-words.js";

/** Deepest nesting of objects/arrays accepted in a schema (our limit; model APIs allow far less). */
export const MAX_SCHEMA_DEPTH = 100;

export type { SchemaDialect } from "../../contract/ajv.js";

/**
 * The dialect named by a schema's `$schema` (a trailing `#` or empty fragment is ignored);
 * `"2020-12"` when `$schema` is absent; `undefined` when it names something unsupported.
 */
export function selectDialect(schema: unknown): SchemaDialect | undefined {
  if (!isJsonObject(schema) || schema["$schema"] === undefined) return "2020-12";
  const uri = schema["$schema"];
  return typeof uri === "string" ? dialectOfUri(uri) : undefined;
}

/** Which schema a check is about, and where it is written. */
export interface SchemaSubject {
  /** `"inputSchema"` of a tool or the plugin's `"configSchema"` (used in messages). */
  readonly role: "inputSchema" | "configSchema";
  /** The located value that contains the schema (e.g. the whole entry). */
  readonly located: LocatedValue;
  /** JSON Pointer of the schema inside `located` (e.g. `/tools/echo/inputSchema`). */
  readonly pointer: string;
  /** Location to use when nothing more precise is known (the entry file's start). */
  readonly fallback: SourceLocation;
}

/**
 * The compile {@link checkJsonSchema} would ask `compiler` for, when the schema passes the
 * cheap checks that come first (depth, object root, known dialect, `type: "object"`);
 * `undefined` when it stops before compiling. Used to announce compiles ahead of time.
 */
export function compileJobOf(schema: JsonValue | undefined): SchemaCompileJob | undefined {
  if (!isJsonObject(schema) || schema["type"] !== "object") return undefined;
  const dialect = selectDialect(schema);
  if (!dialect || nestingDepth(schema, MAX_SCHEMA_DEPTH + 1) > MAX_SCHEMA_DEPTH) return undefined;
  return { dialect, schema };
}

/**
 * Checks one schema. Returns every problem found (empty when the schema is accepted); never
 * throws, whatever the schema holds.
 *
 * @param compiler who runs the strict-mode ajv compile (default: this thread, as asked);
 *   every compiler gives the same verdicts, so the diagnostics do not depend on it.
 */
export function checkJsonSchema(schema: JsonValue, subject: SchemaSubject, compiler: SchemaCompiler = inlineSchemaCompiler): Diagnostic[] {
  const at = (relative: string, key = false): { location: SourceLocation; path: PropertyKey[] } => {
    const pointer = subject.pointer + relative;
    const found = locateValue(subject.located, pointer, subject.fallback);
    return { location: (key ? found.key : undefined) ?? found.value, path: pointerToSegmentsIn(pointer, subject.located.value) };
  };
  const report = (message: (typeof Diagnostics)[keyof typeof Diagnostics], relative: string, args: (string | number)[], hint?: string, key = false): Diagnostic => {
    const { location, path } = at(relative, key);
    return createDiagnostic(message, location, args, { path, ...(hint ? { hint } : {}) });
  };

  const depth = nestingDepth(schema, MAX_SCHEMA_DEPTH + 1);
  if (depth > MAX_SCHEMA_DEPTH) return [report(Diagnostics.SchemaTooDeep, "", [subject.role, MAX_SCHEMA_DEPTH])];
  if (!isJsonObject(schema)) return [report(Diagnostics.SchemaRootNotObject, "", [subject.role])];
  const dialect = selectDialect(schema);
  if (!dialect) return [report(Diagnostics.SchemaDialectUnsupported, "/$schema", [subject.role, String(schema["$schema"])])];
  if (schema["type"] !== "object") return [report(Diagnostics.SchemaRootNotObject, schema["type"] === undefined ? "" : "/type", [subject.role], rootTypeHint(schema["type"]))];

  // Every independent mistake of the schema is reported in one run (docs/cli.md: "reports all
  // diagnostics of the run together"; helper-83's E5): a wrong keyword value, an unknown
  // keyword, an invalid pattern, an unknown format, an undefined required name and a bad default
  // do not hide one another. ajv stops at its first strict-mode error, so the keyword-level
  // checks below walk the schema themselves; ajv stays the judge of whether it is accepted.
  const verdict = compiler.verdict(dialect, schema);
  // Walked only when something asks: most schemas are accepted and declare no default, and this
  // walk of every schema cost about 3 % of a cold compile of 2,000 tools.
  let walked: CompiledSubschema[] | undefined;
  const subschemas = (): CompiledSubschema[] => (walked ??= compiledSubschemas(schema, dialect));
  // The schema-relative pointer of every mistake located below: taken out of a copy that ajv
  // judges again, for what its first failure hid (`schema-repair.ts`).
  const located: string[] = [];
  const locating: Report = (message, relative, args, hint, key) => {
    located.push(relative);
    return report(message, relative, args, hint, key);
  };
  const keywords = staticKeywordDiagnostics(schema, dialect, locating, subject.role);
  // A schema ajv accepts is never refused by them (they are no stricter than ajv, but a schema
  // ajv accepts is left to its verdict, so no valid schema is ever newly refused).
  const refused = verdict.metaErrors !== null || verdict.compileError !== null || keywords.length > 0;
  const names = refused ? namedReferenceDiagnostics(subschemas(), dialect, locating, subject.role) : [];
  if (verdict.metaErrors) {
    // With them, the unknown and misspelt keywords elsewhere in the schema (`maxLenght`,
    // `requird`), so that one wrong value does not hide them until the next compile (helper-78's
    // trial); not where a meta-schema error already points. ajv cannot compile a schema that
    // fails its meta-schema: what the compile and the defaults would say is asked of the schema
    // without those mistakes.
    const meta = metaSchemaDiagnostics(verdict.metaErrors, schema, dialect, locating, subject.role);
    const said = new Set(meta.map((d) => JSON.stringify(d.path ?? [])));
    const found = [...meta, ...[...keywords, ...names].filter((d) => !said.has(JSON.stringify(d.path ?? [])))];
    return withFurther(found, hiddenMistakes(withoutMistakes(schema, located), compiler, dialect, report, subject.role, schema, true));
  }

  const cycles = refCycleDiagnostics(schema, dialect, report, subject.role);
  let diagnostics = [...keywords, ...names, ...cycles];
  // ajv's own compile error, unless it is one of those already located (an unknown keyword or
  // an invalid pattern is what ajv stopped at; a format or required name is reported above).
  if (keywords.length === 0 && cycles.length === 0 && verdict.compileError !== null) {
    diagnostics = withFurther(diagnostics, compileErrorDiagnostics(verdict.compileError, schema, { compiler, dialect, report, role: subject.role, original: schema }));
  }
  // ajv stopped at the first of the located mistakes: what it says without them. (A $ref cycle
  // would send ajv round it for ever.)
  if (cycles.length === 0 && located.length > 0) diagnostics = withFurther(diagnostics, hiddenMistakes(withoutMistakes(schema, located), compiler, dialect, report, subject.role, schema, false));
  if (cycles.length === 0 && holdsKey(schema, "default")) diagnostics = withFurther(diagnostics, defaultDiagnostics(subschemas(), schema, dialect, report, subject.role));
  if (holdsKey(schema, "enum") || holdsKey(schema, "const")) diagnostics = withFurther(diagnostics, nullableEnumDiagnostics(subschemas(), report, subject.role));
  return diagnostics;
}

/**
 * AL4039 at each `enum` or `const` that refuses null in a subschema whose type allows it: a
 * `type` array that lists "null", or OpenAPI's `nullable: true` (which the validator, ajv, also
 * applies: null then passes the type). Null passes the type and fails the `enum` (no null in it)
 * or the `const` (a value that is not null), so the type only looks nullable (new-user trial 129,
 * finding 3: the openai-strict hint's `"type": ["string", "null"]` on an enum property compiled
 * clean, and every null failed invalid_input at run time). A `const` or `enum` beside a type
 * that does not allow null is not this rule's: the model is not told null is a value.
 */
function nullableEnumDiagnostics(subschemas: readonly CompiledSubschema[], report: Report, role: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const { schema, pointer } of subschemas) {
    const type = schema["type"];
    const byType = Array.isArray(type) && type.includes("null");
    const byNullable = !byType && schema["nullable"] === true;
    if (!byType && !byNullable) continue;
    const allows = byType ? "its `type`" : "`nullable: true`";
    const notNullable = byType ? 'remove "null" from the `type`' : "remove `nullable: true`";
    const values = schema["enum"];
    if (Array.isArray(values) && !values.includes(null)) {
      out.push(report(Diagnostics.SchemaNullableEnumWithoutNull, `${pointer}/enum`, [role, allows, "its `enum` does not list null"], `Add \`null\` to the \`enum\`, or ${notNullable}.`));
    }
    if (Object.hasOwn(schema, "const") && schema["const"] !== null) {
      const written = JSON.stringify(schema["const"]);
      const shown = written.length > 40 ? "<its value>" : written;
      out.push(report(Diagnostics.SchemaNullableEnumWithoutNull, `${pointer}/const`, [role, allows, `its \`const\` is ${shown}`], `Write \`"enum": [${shown}, null]\` instead of the \`const\` (null then passes too), or ${notNullable}.`));
    }
  }
  return out;
}

/** The codes the located checks give (keywords, patterns, formats, required names). */
const LOCATED_CODES: ReadonlySet<string> = new Set([
  Diagnostics.SchemaUnknownKeyword.code,
  Diagnostics.SchemaInvalidPattern.code,
  Diagnostics.SchemaUnknownFormat.code,
  Diagnostics.SchemaRequiredNotDefined.code,
]);

/** `found` and those of `further` not already said (the same code at the same path). */
function withFurther(found: readonly Diagnostic[], further: readonly Diagnostic[]): Diagnostic[] {
  const said = new Set(found.map((d) => `${d.code} ${JSON.stringify(d.path ?? [])}`));
  return [...found, ...further.filter((d) => !said.has(`${d.code} ${JSON.stringify(d.path ?? [])}`))];
}

/**
 * What ajv says of `repaired` (the schema with its located mistakes taken out,
 * `schema-repair.ts`): its compile error, and, when `defaults` (the schema as written failed
 * its meta-schema, so its defaults were not checked), the defaults its subschemas reject.
 * Nothing when the copy still fails the meta-schema or has a `$ref` cycle. Locations are those
 * of the schema as written (`original`): a removal leaves every other pointer where it was, but
 * for an item after a removed one in the same array, which is found by its name (a required name).
 */
function hiddenMistakes(
  repaired: JsonObject | undefined,
  compiler: SchemaCompiler,
  dialect: SchemaDialect,
  report: Report,
  role: string,
  original: JsonObject,
  defaults: boolean,
): Diagnostic[] {
  if (repaired === undefined || repaired["type"] !== "object") return [];
  const verdict = compiler.verdict(dialect, repaired);
  if (verdict.metaErrors !== null || refCycleDiagnostics(repaired, dialect, report, role).length > 0) return [];
  const found: Diagnostic[] = [];
  // Formats, required names, keywords and patterns are the located checks' to judge on the schema
  // as written (a required name under a misspelt `properties` is that one mistake, AL4020):
  // taking `propertes` out must not make its names undefined.
  const compiled = verdict.compileError === null ? [] : compileErrorDiagnostics(verdict.compileError, repaired, { compiler, dialect, report, role, original });
  found.push(...compiled.filter((d) => !LOCATED_CODES.has(d.code)));
  if (defaults && holdsKey(repaired, "default")) found.push(...defaultDiagnostics(compiledSubschemas(repaired, dialect), repaired, dialect, report, role));
  return found;
}

/** Whether `key` is an own key of any object in `value` (a quick test before a walk that builds pointers). */
function holdsKey(value: JsonValue, key: string): boolean {
  if (Array.isArray(value)) return value.some((item) => holdsKey(item, key));
  if (value === null || typeof value !== "object") return false;
  if (Object.hasOwn(value, key)) return true;
  for (const child of Object.values(value)) if (holdsKey(child, key)) return true;
  return false;
}

/** A subschema ajv compiles, with its JSON Pointer from the root. */
interface CompiledSubschema {
  readonly schema: JsonObject;
  readonly pointer: string;
}

/**
 * The subschemas of `schema` that ajv compiles: every one {@link walkSubschemas} visits, except
 * those under a `$defs`/`definitions` entry that no local `$ref` names (ajv compiles a
 * definition only when it is referenced) and under `contentSchema` (an annotation to ajv). The
 * checks of formats, required names and defaults look only here, so they never refuse what
 * ajv would never read.
 */
function compiledSubschemas(schema: JsonObject, dialect: SchemaDialect): CompiledSubschema[] {
  const referenced = new Set<string>();
  walkSubschemas(schema, dialect, (subschema) => {
    const ref = subschema["$ref"];
    // Not a pointer below the root: names no definition here.
    const target = typeof ref === "string" ? localPointerOf(ref) : undefined;
    if (target) referenced.add(target);
  });
  const isReferenced = (pointer: string) => [...referenced].some((target) => target === pointer || target.startsWith(`${pointer}/`));
  const skipped: string[] = [];
  const found: CompiledSubschema[] = [];
  walkSubschemas(schema, dialect, (subschema, pointer) => {
    // The walk is depth-first, parents first: a skipped subtree is known before its members.
    if (skipped.some((root) => pointer.startsWith(`${root}/`))) return;
    const keyword = parentKeyword(pointer);
    if (keyword === "contentSchema" || ((keyword === "$defs" || keyword === "definitions") && !isReferenced(pointer))) {
      skipped.push(pointer);
      return;
    }
    found.push({ schema: subschema, pointer });
  });
  return found;
}

/**
 * The keyword whose value holds the subschema at `pointer` (`$defs` for `/$defs/a`,
 * `contentSchema` for `/properties/s/contentSchema`), as {@link walkSubschemas} builds pointers.
 */
function parentKeyword(pointer: string): string | undefined {
  const segments = pointer.split("/");
  const last = segments[segments.length - 1];
  if (last === "contentSchema") return last;
  return segments.length >= 3 ? segments[segments.length - 2] : undefined;
}

/**
 * Unknown formats (AL4022) and `required` names no `properties` defines (AL4023), each at its
 * own keyword, with the near name when there is one (helper-83's E8: `emial` → `email`,
 * `emali` → the property `email`). ajv's strict mode makes the same two checks but throws at
 * the first one; these are no stricter: a required name counts as defined when any `properties`
 * of the schema declares it (ajv also accepts a name an `allOf` branch defines). Not reported
 * in a subschema whose `properties` is itself misspelt (`propertes`): that one mistake is its
 * AL4020.
 */
function namedReferenceDiagnostics(subschemas: readonly CompiledSubschema[], dialect: SchemaDialect, report: Report, role: string): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const formats = Object.keys(knownFormats(dialect));
  const defined = new Set<string>();
  for (const { schema } of subschemas) {
    if (isJsonObject(schema["properties"])) for (const name of Object.keys(schema["properties"])) defined.add(name);
  }
  const keywords = knownKeywords(dialect);
  for (const { schema, pointer } of subschemas) {
    const format = schema["format"];
    if (typeof format === "string" && !formats.includes(format)) {
      diagnostics.push(report(Diagnostics.SchemaUnknownFormat, `${pointer}/format`, [role, format], didYouMeanHint(format, formats)));
    }
    const required = schema["required"];
    if (!Array.isArray(required)) continue;
    // A `properties` that is not an object (AL4019) or is misspelt (AL4020) is that one mistake.
    if (schema["properties"] !== undefined && !isJsonObject(schema["properties"])) continue;
    if (schema["properties"] === undefined && Object.keys(schema).some((key) => !Object.hasOwn(keywords, key) && didYouMean(key, ["properties"]) === "properties")) continue;
    const properties = isJsonObject(schema["properties"]) ? Object.keys(schema["properties"]) : [];
    const missing = required.filter((name): name is string => typeof name === "string" && !defined.has(name));
    for (const name of missing) {
      const index = required.indexOf(name);
      diagnostics.push(report(Diagnostics.SchemaRequiredNotDefined, `${pointer}/required/${index}`, [role, name], didYouMeanHint(name, properties)));
    }
  }
  return diagnostics;
}

/**
 * Each `default` its own subschema rejects (AL4033), at the default, in the subschemas ajv
 * compiles (`schema-defaults.ts`).
 */
function defaultDiagnostics(subschemas: readonly CompiledSubschema[], schema: JsonObject, dialect: SchemaDialect, report: Report, role: string): Diagnostic[] {
  const withDefault = subschemas.filter((s) => Object.hasOwn(s.schema, "default")).map((s) => ({ pointer: s.pointer, value: s.schema["default"]! }));
  return defaultViolations(dialect, schema, withDefault).map(({ pointer, value, error }) => {
    const at = error.instancePath === "" ? "" : ` at '${formatPropertyPath(pointerToSegmentsIn(error.instancePath, value))}'`;
    const reason = `${schemaErrorReason(error, valueAtPointer(value, error.instancePath))}${at}`;
    return report(Diagnostics.SchemaDefaultInvalid, `${pointer}/default`, [role, JSON.stringify(value), reason], schemaErrorHint(error, valueAtPointer(value, error.instancePath)) ?? undefined);
  });
}

/**
 * The AL4017 hint for a root `type` that is not a type name but a near miss of `object`
 * (`"objct"`, `"Object"`): "Did you mean 'object'?", not the catalog's "wrap the value in an
 * object", which fits a root of another type. `undefined` (the catalog's hint) otherwise.
 */
function rootTypeHint(type: JsonValue | undefined): string | undefined {
  if (typeof type !== "string" || SIMPLE_TYPES.has(type)) return undefined;
  return didYouMean(type, SIMPLE_TYPES) === "object" ? "Did you mean 'object'?" : undefined;
}

type Report = (
  message: (typeof Diagnostics)[keyof typeof Diagnostics],
  relative: string,
  args: (string | number)[],
  hint?: string,
  key?: boolean,
) => Diagnostic;

/** Meta-schema violations: keep the most specific error per instance path. */
function metaSchemaDiagnostics(errors: readonly MetaSchemaError[], schema: JsonObject, dialect: SchemaDialect, report: Report, role: string): Diagnostic[] {
  const byPath = new Map<string, MetaSchemaError>();
  for (const error of errors) {
    // anyOf/oneOf wrappers repeat what their branches said; the first leaf error is the useful one.
    if (!byPath.has(error.instancePath) || error.keyword === "enum") byPath.set(error.instancePath, error);
  }
  return [...byPath.values()].map((error) => {
    const keyword = error.instancePath.slice(error.instancePath.lastIndexOf("/") + 1) || "(root)";
    const allowed = error.keyword === "enum" ? error.allowedValues : undefined;
    const words = allowed ? `must be one of ${allowed.map((v) => JSON.stringify(v)).join(", ")}` : metaErrorWords(error);
    const actual = valueAtPointer(schema, error.instancePath);
    const tuple = keyword === "items" && dialect === "2020-12" && Array.isArray(actual);
    // A misspelt name among allowed ones (`type: "strng"`, or one entry of `type: ["strng", "null"]`)
    // gets the nearest allowed name, as an unknown keyword does.
    const misspelt = typeof actual === "string" ? actual : Array.isArray(actual) ? actual.find((item) => typeof item === "string" && !allowed?.includes(item)) : undefined;
    const hint = tuple
      ? "Use prefixItems for a tuple (2020-12); 'items' is the schema of the items after them."
      : allowed && typeof misspelt === "string"
        ? didYouMeanHint(misspelt, allowed.filter((value): value is string => typeof value === "string"))
        : quotedValueHint(error, actual);
    return report(Diagnostics.SchemaInvalidKeywordValue, error.instancePath, [role, keyword, words], hint);
  });
}

/**
 * The hint for a boolean or a number written in quotes where the keyword takes one
 * (`additionalProperties: "false"`, `maxLength: "10"`): the fix is to drop the quotes
 * (helper-78's trial). `undefined` for anything else.
 */
function quotedValueHint(error: MetaSchemaError, actual: unknown): string | undefined {
  const types = error.keyword === "type" ? /^must be ([a-z]+(?:,[a-z]+)*)$/.exec(error.message ?? "")?.[1]?.split(",") : undefined;
  if (typeof actual !== "string" || !types) return undefined;
  const trimmed = actual.trim();
  if (types.includes("boolean") && (trimmed === "true" || trimmed === "false")) return `Write ${trimmed} without quotes: a boolean, not the string ${JSON.stringify(actual)}.`;
  if ((types.includes("number") || types.includes("integer")) && /^-?\d+(?:\.\d+)?$/.test(trimmed)) return `Write ${trimmed} without quotes: a number, not the string ${JSON.stringify(actual)}.`;
  return undefined;
}

/** ajv's message about a meta-schema violation, in words ("must be object,boolean" → "must be an object or a boolean"). */
function metaErrorWords(error: MetaSchemaError): string {
  const types = /^must be ([a-z]+(?:,[a-z]+)*)$/.exec(error.message ?? "");
  if (error.keyword === "type" && types) return `must be ${describeSchemaType(types[1]!)}`;
  return error.message ?? "is invalid";
}


/**
 * Short or foreign spellings of JSON Schema keywords that edit distance alone cannot place
 * (`min` is four edits from `minimum`), lower-cased as `didYouMean` compares them.
 */
const KEYWORD_ALIASES: Readonly<Record<string, string>> = {
  min: "minimum",
  max: "maximum",
  exclusivemin: "exclusiveMinimum",
  exclusivemax: "exclusiveMaximum",
  minlen: "minLength",
  maxlen: "maxLength",
  regex: "pattern",
  regexp: "pattern",
  example: "examples",
};

/** Unknown keywords, invalid regular expressions and unresolvable local `$ref`s, located precisely. */
function staticKeywordDiagnostics(schema: JsonValue, dialect: SchemaDialect, report: Report, role: string): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const keywords = knownKeywords(dialect);
  walkSubschemas(schema, dialect, (subschema, pointer) => {
    for (const key of Object.keys(subschema)) {
      // `x-…` names are vendor annotations (vendor-keywords.ts); every other unknown name is refused.
      if (!Object.hasOwn(keywords, key) && !isVendorKeyword(key)) {
        const suggestion = didYouMean(key, Object.keys(keywords), KEYWORD_ALIASES);
        diagnostics.push(
          report(
            Diagnostics.SchemaUnknownKeyword,
            `${pointer}/${escapePointerSegment(key)}`,
            [role, key],
            suggestion ? `Did you mean '${suggestion}'?` : `Remove it, or name it 'x-${key}' if it is a vendor annotation: strict mode accepts only the keywords of the ${dialect} dialect and x- annotations.`,
            true,
          ),
        );
      }
    }
    const pattern = subschema["pattern"];
    if (typeof pattern === "string" && !isValidRegExp(pattern)) {
      diagnostics.push(report(Diagnostics.SchemaInvalidPattern, `${pointer}/pattern`, [role, pattern]));
    }
    const patternProperties = subschema["patternProperties"];
    if (isJsonObject(patternProperties)) {
      for (const key of Object.keys(patternProperties)) {
        if (!isValidRegExp(key)) diagnostics.push(report(Diagnostics.SchemaInvalidPattern, `${pointer}/patternProperties/${escapePointerSegment(key)}`, [role, key], undefined, true));
      }
    }
  });
  return diagnostics;
}

/**
 * `$ref`s whose chain of local JSON-Pointer references (`#/properties/x` → … ) comes back to
 * where it started: ajv would follow them until the stack overflows, and a validator would
 * loop forever. Reported once per cycle, at the `$ref` written first.
 */
function refCycleDiagnostics(schema: JsonObject, dialect: SchemaDialect, report: Report, role: string): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const reported = new Set<string>();
  walkSubschemas(schema, dialect, (subschema, pointer) => {
    // The walk hands over the subschema at `pointer` itself: only one with a local `$ref` starts a chain.
    const first = localRefOf(schema, subschema);
    if (first === undefined) return;
    const chain: string[] = [pointer];
    let at: string | undefined = first;
    while (at !== undefined && !chain.includes(at)) {
      chain.push(at);
      at = localRefTarget(schema, at);
    }
    if (at !== pointer || reported.has(pointer)) return;
    chain.forEach((member) => reported.add(member));
    const route = [...chain, pointer].map((member) => `#${member}`).join(" → ");
    const path = formatPropertyPath(pointerToSegmentsIn(pointer, schema)) || "(root)";
    diagnostics.push(report(Diagnostics.SchemaRefCycle, `${pointer}/$ref`, [role, path, route]));
  });
  return diagnostics;
}

/** The pointer a subschema's `$ref` names inside the same schema (`"#"` or `"#/…"`), when it names one that exists. */
function localRefTarget(schema: JsonObject, pointer: string): string | undefined {
  return localRefOf(schema, valueAtPointer(schema, pointer));
}

/** The pointer the `$ref` of `ref` (a subschema of `schema`) names inside `schema`, as {@link localRefTarget}. */
function localRefOf(schema: JsonObject, ref: unknown): string | undefined {
  const target = isJsonObject(ref) && typeof ref["$ref"] === "string" ? localPointerOf(ref["$ref"]) : undefined;
  return target !== undefined && isJsonObject(valueAtPointer(schema, target)) ? target : undefined;
}

/**
 * The JSON Pointer a `$ref` text names inside the same schema (`"#"` → `""`, `"#/$defs/a%20b"` →
 * `"/$defs/a b"`); `undefined` for anything else (an anchor, another URI, a bad escape).
 */
function localPointerOf(text: string): string | undefined {
  if (!text.startsWith("#")) return undefined;
  let target: string;
  try {
    target = decodeURIComponent(text.slice(1));
  } catch {
    return undefined;
  }
  return target === "" || target.startsWith("/") ? target : undefined;
}

/** What {@link compileErrorDiagnostics} needs besides the message: who compiles, and how to report. */
interface CompileContext {
  readonly compiler: SchemaCompiler;
  readonly dialect: SchemaDialect;
  readonly report: Report;
  readonly role: string;
  /** The schema as written: locations and words come from it (the compiled one may be a repaired copy of it). */
  readonly original: JsonObject;
}

/**
 * The diagnostics of the message `ajv.compile` threw for `compiled` (the schema as written, or a
 * copy without its located mistakes): one ({@link compileErrorDiagnostic}), but for an
 * unresolved `$ref`, every unresolved `$ref` of the schema, each at its own `$ref`
 * ({@link unresolvedRefDiagnostics}).
 */
function compileErrorDiagnostics(message: string, compiled: JsonObject, context: CompileContext): Diagnostic[] {
  const ref = unresolvedRefOf(message);
  const refs = ref ? unresolvedRefDiagnostics(ref, compiled, context) : [];
  return refs.length > 0 ? refs : [compileErrorDiagnostic(message, context.report, context.role, context.original)];
}

/** The `$ref` text and base URI of ajv's "can't resolve reference R from id B" message. */
function unresolvedRefOf(message: string | null): { readonly text: string; readonly base: string } | undefined {
  const match = message === null ? null : /can't resolve reference (\S+)(?: from id (\S+))?/.exec(message);
  return match ? { text: match[1]!, base: match[2] ?? "#" } : undefined;
}

/** How many more compiles one schema's unresolved `$ref`s may cost (one per distinct reference ajv names that the located check did not find). */
const MAX_REF_ROUNDS = 16;

/**
 * Every `$ref` of `compiled` that does not resolve (AL4024), each at its `$ref` value (ajv's
 * message names the reference, not where it is written). ajv throws at the first one, with its
 * text and base URI: the `$ref`s with that text (under that base when it can be told) are it.
 * Then, found without ajv, every local JSON-Pointer `$ref` (`#/…`) whose target does not exist,
 * when the schema has no `$id` below its root (a nested `$id` makes `#/…` relative to another
 * resource). ajv judges the schema again without all of those: another unresolved reference (an
 * anchor, a relative URI) is located the same way, round after round, up to
 * {@link MAX_REF_ROUNDS}; a different compile error it then throws is reported too. Only a schema
 * ajv already refused for a `$ref` gets here: an accepted schema costs nothing more, a refused one
 * usually one compile more (two or more unresolved non-pointer references cost one each).
 */
function unresolvedRefDiagnostics(first: { readonly text: string; readonly base: string }, compiled: JsonObject, context: CompileContext): Diagnostic[] {
  const { compiler, dialect, report, role, original } = context;
  const refs = refsOf(compiled, dialect);
  const pointers = new Set<string>();
  const found: Diagnostic[] = [];
  const add = (pointer: string, text: string): void => {
    if (pointers.has(pointer)) return;
    pointers.add(pointer);
    found.push(report(Diagnostics.SchemaUnresolvedRef, `${pointer}/$ref`, [role, text]));
  };
  const named = (ref: { readonly text: string; readonly base: string }): WrittenRef[] => {
    const same = refs.filter((r) => r.text === ref.text && !pointers.has(r.pointer));
    const underBase = same.filter((r) => r.base === ref.base);
    return underBase.length > 0 ? underBase : same;
  };
  const firstFound = named(first);
  if (firstFound.length === 0) return [];
  for (const r of firstFound) add(r.pointer, r.text);
  if (!refs.some((r) => r.nestedId)) {
    // Only in subschemas ajv compiles: a `$ref` in a definition nothing references is never resolved.
    const read = new Set(compiledSubschemas(compiled, dialect).map((c) => c.pointer));
    for (const r of refs) if (read.has(r.pointer) && isMissingLocalTarget(compiled, r.text)) add(r.pointer, r.text);
  }
  for (let round = 0; round < MAX_REF_ROUNDS; round++) {
    const repaired = withoutMistakes(compiled, [...pointers].map((pointer) => `${pointer}/$ref`));
    if (repaired === undefined) break;
    const verdict = compiler.verdict(dialect, repaired);
    if (verdict.metaErrors !== null || verdict.compileError === null) break;
    const next = unresolvedRefOf(verdict.compileError);
    if (!next) {
      const other = compileErrorDiagnostic(verdict.compileError, report, role, original);
      if (!LOCATED_CODES.has(other.code)) found.push(other);
      break;
    }
    const more = named(next);
    if (more.length === 0) {
      // Written nowhere we can see (a reference ajv built itself): at the schema, as ajv says it.
      found.push(compileErrorDiagnostic(verdict.compileError, report, role, original));
      break;
    }
    for (const r of more) add(r.pointer, r.text);
  }
  return found;
}

/** A `$ref` as written: the pointer of its subschema, its text, the base URI it resolves against. */
interface WrittenRef {
  readonly pointer: string;
  readonly text: string;
  /** The base URI as ajv names it in its message (`#` for a schema without `$id`). */
  readonly base: string;
  /** Whether some subschema from the root down to it (the root excluded) has an `$id`. */
  readonly nestedId: boolean;
}

/** Every string `$ref` of the schema, in written order, with its base URI. */
function refsOf(schema: JsonObject, dialect: SchemaDialect): WrittenRef[] {
  const bases = new Map<string, { readonly base: string; readonly nestedId: boolean }>();
  const refs: WrittenRef[] = [];
  walkSubschemas(schema, dialect, (subschema, pointer) => {
    // Parents are visited first: the nearest ancestor's base is known.
    let parent = pointer;
    let inherited: { readonly base: string; readonly nestedId: boolean } | undefined;
    while (parent !== "" && inherited === undefined) {
      parent = parent.slice(0, parent.lastIndexOf("/"));
      inherited = bases.get(parent);
    }
    const id = subschema["$id"];
    const base = typeof id === "string" ? resolveBase(id, inherited?.base) : (inherited?.base ?? "#");
    const own = { base, nestedId: (inherited?.nestedId ?? false) || (pointer !== "" && typeof id === "string") };
    bases.set(pointer, own);
    const ref = subschema["$ref"];
    if (typeof ref === "string") refs.push({ pointer, text: ref, ...own });
  });
  return refs;
}

/** An `$id` resolved against the base of its parent resource, without its fragment, as ajv prints it. */
function resolveBase(id: string, parent: string | undefined): string {
  try {
    const url = parent === undefined || parent === "#" ? new URL(id) : new URL(id, parent);
    url.hash = "";
    return url.href;
  } catch {
    return id.replace(/#.*$/, "");
  }
}

/** Whether `text` is a JSON-Pointer `$ref` into the same document (`#/…`) whose target does not exist. */
function isMissingLocalTarget(schema: JsonObject, text: string): boolean {
  const pointer = localPointerOf(text);
  return pointer !== undefined && valueAtPointer(schema, pointer) === undefined;
}

/** Maps the message `ajv.compile` threw to a diagnostic, located when ajv names a schema path. */
function compileErrorDiagnostic(message: string, report: Report, role: string, schema: JsonObject): Diagnostic {
  const pathMatch = /at (?:path )?"#([^"]*)"/.exec(message);
  const relative = pathMatch ? decodeURIComponent(pathMatch[1]!) : "";
  const format = /^unknown format "([^"]+)"/.exec(message);
  if (format) return report(Diagnostics.SchemaUnknownFormat, `${relative}/format`, [role, format[1]!]);
  const required = /required property "([^"]+)" is not defined/.exec(message);
  if (required) {
    // At the name itself, as namedReferenceDiagnostics reports it (the editor's fix renames it there).
    const names = valueAtPointer(schema, `${relative}/required`);
    const index = Array.isArray(names) ? names.indexOf(required[1]!) : -1;
    return report(Diagnostics.SchemaRequiredNotDefined, `${relative}/required${index >= 0 ? `/${index}` : ""}`, [role, required[1]!]);
  }
  const ref = unresolvedRefOf(message);
  if (ref) return report(Diagnostics.SchemaUnresolvedRef, relative, [role, ref.text]);
  const meta = /^no schema with key or ref "([^"]*)"/.exec(message);
  if (meta) return report(Diagnostics.SchemaDialectUnsupported, "/$schema", [role, meta[1]!]);
  const tuple = /"(items|prefixItems)" is (\d+)-tuple, but minItems or maxItems\/(additionalItems|items) are not specified or different/.exec(message);
  if (tuple) {
    const [, keyword, length, rest] = tuple;
    const words = `'${keyword}' describes a tuple of ${length}, but does not say whether more or fewer items are allowed`;
    const hint = `Add minItems: ${length} and ${rest}: false (or maxItems: ${length}) for a fixed-length tuple${keyword === "items" ? ", or use prefixItems/items: false (2020-12)" : ""}; for a list of any length, make '${keyword}' one schema.`;
    return report(Diagnostics.SchemaNotCompilable, relative, [role, words], hint);
  }
  if (/Maximum call stack size exceeded/.test(message)) {
    return report(Diagnostics.SchemaNotCompilable, relative, [role, "its $ref or nesting structure is too deep to follow"]);
  }
  const cleaned = message.replace(/^strict mode: /, "").replace(/ \(strict\w+\)$/, "");
  return report(Diagnostics.SchemaNotCompilable, relative, [role, cleaned]);
}

function isValidRegExp(source: string): boolean {
  try {
    new RegExp(source, "u");
    return true;
  } catch {
    return false;
  }
}

/** Nesting depth of a JSON value (objects and arrays), counted iteratively up to `stopAt`. */
export function nestingDepth(value: unknown, stopAt: number): number {
  if (value === null || typeof value !== "object") return 0;
  let max = 1;
  if (max >= stopAt) return max;
  // Only objects and arrays are stacked, each with its depth in a parallel array: no record per
  // value (every schema is measured twice per compile; 2,000 schemas took about 10 ms).
  const objects: object[] = [value];
  const depths: number[] = [1];
  while (objects.length > 0) {
    const current = objects.pop()!;
    const next = depths.pop()! + 1;
    for (const child of Array.isArray(current) ? (current as unknown[]) : Object.values(current)) {
      if (child === null || typeof child !== "object") continue;
      if (next > max) {
        max = next;
        if (max >= stopAt) return max;
      }
      objects.push(child);
      depths.push(next);
    }
  }
  return max;
}
