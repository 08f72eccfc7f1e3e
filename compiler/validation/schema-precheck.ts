/**
 * A cheap proof that ajv accepts a schema, without generating validator code (issue 14 item 1:
 * "validate a schema's keywords against the dialect's meta-schema and our strict keyword table
 * without generating ajv validator code at compile time").
 *
 * ajv's strict-mode compile (`schema-judge.ts`) builds a validator's source text and evaluates
 * it; about 1.5 ms of CPU per schema, most of a cold compile's cost on a large agent. For the
 * schemas real tools declare (objects of typed properties, enums, bounds, formats, nested
 * objects and arrays, `anyOf`/`oneOf`/`allOf`/`not`) the answer is known without that code.
 * {@link certainlyAccepted} walks the schema once and says `true` only when it can prove that
 * both steps of the judge would pass:
 *
 * - the meta-schema check of the dialect: every keyword value has the shape the dialect's
 *   meta-schema requires (`refs/json-schema-draft-07.json`, `refs/json-schema-2019-09/meta/*`,
 *   `refs/json-schema-2020-12/meta/*` in ajv, which agree for the keywords below); `pattern`
 *   is tested with the instance's own `regex` format, as the meta-schema check does;
 * - the strict-mode compile with our options (`strict: true`, `allowUnionTypes`): every keyword
 *   is one ajv knows (`RULES.keywords`, as `strictSchema` checks); every keyword that applies
 *   to certain JSON types has one of them in the subschema's `type` or in the types its
 *   context allows (`strictTypes`, the same walk as ajv's `checkStrictTypes`, using ajv's own
 *   rule table); every `required` name is a property of the same subschema
 *   (`strictRequired`); an `enum` is not empty; a `format` is one the instance knows.
 *
 * Anything else — `$ref`, `$id`, `$defs`, tuples, `if`/`then`/`else`, `patternProperties`, a
 * nested `$schema`, a keyword value of an unexpected shape, deep nesting — makes it answer
 * `false`, and the judge asks ajv as before. So the check only ever skips work: a schema it
 * accepts is one ajv accepts, and every diagnostic still comes from ajv's own words
 * (test/validation/schema-precheck.test.ts compares the two on generated schemas).
 */
import { isJsonObject, type JsonObject, type JsonValue } from "../../common/json-value.js";

/** One of ajv's rules (`RULES.all[keyword]`), as much of it as the check reads. */
export interface AjvRule {
  readonly keyword: string;
  readonly definition: {
    /** JSON types the keyword applies to (empty or absent: any). */
    readonly type?: readonly string[];
    /** Other keywords that make the rule apply. */
    readonly implements?: readonly string[];
    /** Keywords the rule requires beside it. */
    readonly dependencies?: readonly string[];
    /** A custom check of the keyword's value. */
    readonly validateSchema?: unknown;
    /** Accepted JSON types of the keyword's value. */
    readonly schemaType?: string | readonly string[];
  };
}

/** What the check needs from the ajv instance of a dialect (read once per instance). */
export interface AjvTables {
  /** `RULES.keywords`: every keyword the dialect knows (what `strictSchema` accepts). */
  readonly keywords: Readonly<Record<string, unknown>>;
  /** The typed rules of `RULES.all` in ajv's order (those `checkKeywordTypes` looks at). */
  readonly rules: readonly AjvRule[];
  /** The formats the instance knows, by name. */
  readonly formats: Readonly<Record<string, unknown>>;
  /** The instance's `regex` format (what the meta-schema check applies to `pattern`). */
  readonly isRegex: (source: string) => boolean;
  /** The `$schema` under which the dialect's meta-schema is registered. */
  readonly canonicalSchemaUri: string;
}

/**
 * Subschema nesting beyond which the check gives up (ajv's compile recurses per level; a deep
 * schema is left to ajv, which reports what it reports).
 */
const MAX_LEVELS = 32;

/** The JSON Schema type names (`type: "…"`), the same in every supported dialect. */
export const SIMPLE_TYPES: ReadonlySet<string> = new Set(["array", "boolean", "integer", "null", "number", "object", "string"]);

type ValueCheck = (value: JsonValue) => boolean;

const isString: ValueCheck = (value) => typeof value === "string";
const isNumber: ValueCheck = (value) => typeof value === "number";
const isBoolean: ValueCheck = (value) => typeof value === "boolean";
const isNonNegativeInteger: ValueCheck = (value) => typeof value === "number" && Number.isInteger(value) && value >= 0;
const isAnything: ValueCheck = () => true;

/**
 * The keywords whose value alone decides the meta-schema check and the compile, with that
 * check. The same in draft-07, 2019-09 and 2020-12 wherever the dialect's meta-schema
 * describes the keyword; where it does not (draft-07 has no `deprecated`/`writeOnly`), the
 * check is stricter than the meta-schema, which only sends more schemas to ajv.
 */
const VALUE_CHECKS: Readonly<Record<string, ValueCheck>> = {
  $comment: isString,
  title: isString,
  description: isString,
  default: isAnything,
  examples: (value) => Array.isArray(value),
  deprecated: isBoolean,
  readOnly: isBoolean,
  writeOnly: isBoolean,
  const: isAnything,
  // draft-07 also asks for at least one item and unique items; ajv's compile for a non-empty one.
  enum: (value) => Array.isArray(value) && value.length > 0 && distinctPrimitives(value),
  type: (value) => (typeof value === "string" ? SIMPLE_TYPES.has(value) : Array.isArray(value) && value.length > 0 && value.every((t) => typeof t === "string" && SIMPLE_TYPES.has(t)) && distinctPrimitives(value)),
  multipleOf: (value) => typeof value === "number" && value > 0,
  maximum: isNumber,
  minimum: isNumber,
  exclusiveMaximum: isNumber,
  exclusiveMinimum: isNumber,
  maxLength: isNonNegativeInteger,
  minLength: isNonNegativeInteger,
  maxItems: isNonNegativeInteger,
  minItems: isNonNegativeInteger,
  maxProperties: isNonNegativeInteger,
  minProperties: isNonNegativeInteger,
  uniqueItems: isBoolean,
};

/** Keywords whose value is one subschema for another part of the data (ajv resets the context types). */
const DATA_SUBSCHEMA = new Set(["additionalProperties", "items"]);
/** Keywords whose value is a non-empty list of subschemas for the same data (context types kept). */
const SAME_DATA_LIST = new Set(["allOf", "anyOf", "oneOf"]);

/**
 * True when ajv, set up as `tables` says, certainly accepts `schema`: it passes the dialect's
 * meta-schema check and compiles in strict mode. `false` means "not proven" (the caller asks
 * ajv), never "refused". `schema` is the copy ajv would see: vendor keywords removed, the root
 * `$schema` (if any) in its canonical spelling. Never throws.
 */
export function certainlyAccepted(schema: JsonObject, tables: AjvTables): boolean {
  if (schema["$schema"] !== undefined && schema["$schema"] !== tables.canonicalSchemaUri) return false;
  return subschemaAccepted(schema, [], tables, 0, true);
}

/** One subschema in data context `context` (the JSON types ajv's `dataTypes` holds there). */
function subschemaAccepted(schema: JsonValue | undefined, context: readonly string[], tables: AjvTables, level: number, root = false): boolean {
  if (typeof schema === "boolean") return true;
  if (!isJsonObject(schema) || level > MAX_LEVELS) return false;
  for (const key of Object.keys(schema)) {
    if (!Object.hasOwn(tables.keywords, key)) return false; // strictSchema: unknown keyword
    if (!keywordValueAccepted(key, schema, tables, root)) return false;
  }
  const types = typesOf(schema["type"]);
  // checkContextTypes: the subschema's own types must fit its context, which they narrow.
  let effective: readonly string[];
  if (types.length === 0) effective = context;
  else if (context.length === 0) effective = types;
  else {
    if (!types.every((t) => includesType(context, t))) return false;
    effective = narrowTypes(context, types);
  }
  // The rules the subschema uses (ajv's `shouldUseRule`), found from its own keys rather than by asking every
  // rule of the dialect; a rule named by two of its keys is checked twice, to the same answer.
  const byKeyword = rulesByKeyword(tables);
  for (const key of Object.keys(schema)) {
    const rules = byKeyword.get(key);
    if (rules === undefined) continue;
    for (const rule of rules) if (!ruleAccepted(schema, rule, effective)) return false;
  }
  for (const key of Object.keys(schema)) {
    const value = schema[key]!;
    if (key === "properties") {
      for (const name of Object.keys(value as JsonObject)) if (!subschemaAccepted((value as JsonObject)[name], [], tables, level + 1)) return false;
    } else if (DATA_SUBSCHEMA.has(key)) {
      if (!subschemaAccepted(value, [], tables, level + 1)) return false;
    } else if (SAME_DATA_LIST.has(key)) {
      for (const item of value as JsonValue[]) if (!subschemaAccepted(item, effective, tables, level + 1)) return false;
    } else if (key === "not") {
      if (!subschemaAccepted(value, effective, tables, level + 1)) return false;
    }
  }
  return true;
}

/** ajv's `checkKeywordTypes`, dependencies and schema-type checks of one rule the subschema uses. */
function ruleAccepted(schema: JsonObject, rule: AjvRule, effective: readonly string[]): boolean {
  const { type, dependencies, validateSchema, schemaType } = rule.definition;
  // checkKeywordTypes: a typed keyword needs one of its types among the subschema's.
  if (type !== undefined && type.length > 0 && !type.some((t) => effective.includes(t) || (t === "number" && effective.includes("integer")))) return false;
  if (validateSchema !== undefined || (dependencies !== undefined && dependencies.some((d) => !Object.hasOwn(schema, d)))) return false;
  if (Object.hasOwn(schema, rule.keyword) && schemaType !== undefined && !fitsSchemaType(schema[rule.keyword]!, schemaType)) return false;
  return true;
}

const RULE_INDEXES = new WeakMap<AjvTables, ReadonlyMap<string, readonly AjvRule[]>>();

/**
 * The rules of `tables` by each keyword that makes one apply (its own and those it
 * `implements`: ajv's `shouldUseRule` applies a rule when the subschema has one of them), built once per tables
 * (exported for tests).
 */
export function rulesByKeyword(tables: AjvTables): ReadonlyMap<string, readonly AjvRule[]> {
  let index = RULE_INDEXES.get(tables);
  if (index === undefined) {
    const built = new Map<string, AjvRule[]>();
    for (const rule of tables.rules) {
      for (const keyword of [rule.keyword, ...(rule.definition.implements ?? [])]) {
        const list = built.get(keyword);
        if (list === undefined) built.set(keyword, [rule]);
        else if (!list.includes(rule)) list.push(rule);
      }
    }
    RULE_INDEXES.set(tables, (index = built));
  }
  return index;
}

/** The meta-schema shape of one keyword's value, and the compile rules that read only it. */
function keywordValueAccepted(key: string, schema: JsonObject, tables: AjvTables, root: boolean): boolean {
  const value = schema[key]!;
  const check = VALUE_CHECKS[key];
  if (check) return check(value);
  switch (key) {
    case "$schema":
      return root; // checked against the canonical URI by certainlyAccepted
    case "pattern":
      return typeof value === "string" && tables.isRegex(value);
    case "format":
      return typeof value === "string" && Object.hasOwn(tables.formats, value);
    case "required": {
      // strictRequired: every name must be a property of this same subschema.
      const properties = schema["properties"];
      return Array.isArray(value) && value.every((name) => typeof name === "string" && isJsonObject(properties) && Object.hasOwn(properties, name)) && distinctPrimitives(value);
    }
    case "properties":
      return isJsonObject(value);
    case "additionalProperties":
      return typeof value === "boolean" || isJsonObject(value);
    case "items":
      return typeof value === "boolean" || isJsonObject(value); // a tuple (array) is left to ajv
    case "allOf":
    case "anyOf":
    case "oneOf":
      return Array.isArray(value) && value.length > 0;
    case "not":
      return typeof value === "boolean" || isJsonObject(value);
    default:
      return false; // not proven: ajv judges it
  }
}


/** ajv's `validSchemaType` for a JSON value. */
function fitsSchemaType(value: JsonValue, schemaType: string | readonly string[]): boolean {
  const accepted = typeof schemaType === "string" ? [schemaType] : schemaType;
  if (accepted.length === 0) return true;
  return accepted.some((t) => (t === "array" ? Array.isArray(value) : t === "object" ? isJsonObject(value) : typeof value === t));
}

function typesOf(type: JsonValue | undefined): readonly string[] {
  if (typeof type === "string") return [type];
  return Array.isArray(type) ? (type as string[]) : [];
}

/** ajv's `includesType`: `t` is allowed by `types` (an integer is a number). */
function includesType(types: readonly string[], t: string): boolean {
  return types.includes(t) || (t === "integer" && types.includes("number"));
}

/** ajv's `narrowSchemaTypes`: the context types that the subschema's types allow. */
function narrowTypes(context: readonly string[], types: readonly string[]): string[] {
  const narrowed: string[] = [];
  for (const t of context) {
    if (includesType(types, t)) narrowed.push(t);
    else if (types.includes("integer") && t === "number") narrowed.push("integer");
  }
  return narrowed;
}

/** True when every item is a string, number, boolean or null and no two are equal. */
function distinctPrimitives(items: readonly JsonValue[]): boolean {
  if (!items.every((item) => item === null || typeof item !== "object")) return false;
  return new Set(items).size === items.length;
}
