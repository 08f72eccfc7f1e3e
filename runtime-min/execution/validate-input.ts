/**
 * Validates a call's input against the tool's locked `inputSchema` (issue 4 item 3): ajv with
 * no type coercion, no defaults inserted and no unknown keys removed, so the tool receives
 * exactly what the model sent. Failures name the field (`message`, `items[0].name`) in our own
 * words rather than echoing ajv's error objects (STYLE §4).
 *
 * JSON Schema 2020-12 is the default; a schema whose `$schema` names draft-07 is compiled with
 * ajv's draft-07 engine and 2019-09 with ajv's 2019-09 engine, whichever spelling of the
 * meta-schema address it uses (`dialectOfUri`, the compiler's table): the engine is chosen here,
 * so the copy handed to ajv carries no `$schema` (nor `$id`). No ajv instance leaves this module.
 *
 * A validator some process compiled before is evaluated from the user's private code cache
 * (`contract/validator-code-cache.ts`) instead: ajv itself is loaded only for a schema compiled
 * here for the first time (issue 14 item 3, a whole `call`).
 */
import type { ErrorObject, ValidateFunction } from "ajv";
import { formatPropertyPath } from "../../common/property-path.js";
import type { AjvInstance, SchemaDialect } from "../../contract/ajv.js";
import { dialectOfUri } from "../../contract/dialects.js";
import { ValidatorCodeCache, type ValidatorCodeCacheStats } from "../../contract/validator-code-cache.js";
import { pointerToSegmentsIn } from "../../common/json-pointer.js";
import { didYouMean } from "../../common/did-you-mean.js";
import { ValidatorsByContent } from "../../contract/validators-by-content.js";
import { keepClosestBranches, ordinal, type BranchChoice } from "../../diagnostics/closest-branch.js";
import { schemaErrorReason, schemaErrorTarget } from "../../diagnostics/schema-error-words.js";
import { SchemaCompileError } from "./schema-compile-error.js";

/**
 * `validateSchema: false`: ajv does not check a locked schema against its dialect's meta-schema
 * before compiling it. The compiler already did (strictly, AL4xxx) for every schema in the lock,
 * and the artifact is refused unless the manifest's `lockIntegrity` matches the lock's bytes, so
 * the check would only repeat itself — at ~50 ms of CPU per host process for compiling the
 * 2020-12 meta-schema (issue 14 item 3, `call` start-up). A schema ajv still cannot compile is
 * a {@link SchemaCompileError}. `code.source`: ajv keeps the generated code, so it can be
 * written to the code cache (ajv's standalone code needs it; the validator is the same).
 */
const AJV_OPTIONS = {
  allErrors: true,
  verbose: true,
  strict: false,
  validateSchema: false,
  coerceTypes: false,
  useDefaults: false,
  removeAdditional: false,
  validateFormats: true,
  code: { source: true },
} as const;

/** The result of validating one input: `undefined` when valid, else a message naming the fields. */
export type InputProblem = { readonly message: string } | undefined;

export { SchemaCompileError };

const MAX_REPORTED = 5;

/** Options of an {@link InputValidator}. */
export interface InputValidatorOptions {
  /**
   * The folder of the validator code cache (`contract/validator-code-cache.ts`): default the
   * user's private code-cache folder; `null` for none (every schema is compiled with ajv).
   */
  readonly codeCacheDir?: string | null;
}

/** Compiles and caches validators per schema content (`contract/validators-by-content.ts`). */
export class InputValidator {
  /**
   * One engine per dialect, each created on its first schema compiled here: a host whose tools
   * use one dialect (most: 2020-12, the default) sets up one ajv instance, not three, and a host
   * whose validators all come from the code cache sets up none (issue 14 item 3, `call`).
   */
  private readonly engines = new Map<SchemaDialect, AjvInstance>();
  /** Validators by schema content and object, so a call never re-serialises its tool's schema. */
  private readonly validators = new ValidatorsByContent<Promise<ValidateFunction>>();
  private readonly codeCache: ValidatorCodeCache;

  constructor(options: InputValidatorOptions = {}) {
    this.codeCache = new ValidatorCodeCache(options.codeCacheDir);
  }

  /** What the validator code cache did in this validator (for tests and benchmarks). */
  codeCacheStats(): ValidatorCodeCacheStats {
    return this.codeCache.stats();
  }

  /**
   * Validates `input` against `schema`. Resolves to a problem whose message lists up to five
   * failing fields, e.g. "`message` must be a string, but it is a number; `extra` is not allowed (…)",
   * or to `undefined` when the input is valid. Rejects with {@link SchemaCompileError} when
   * `schema` is not a usable JSON Schema.
   */
  async validate(schema: { readonly [key: string]: unknown }, input: unknown): Promise<InputProblem> {
    const validate = await this.compile(schema);
    if (validate(input)) return undefined;
    const reasons = [...new Set(describeErrors(validate.errors ?? [], input))];
    const shown = reasons.slice(0, MAX_REPORTED).join("; ");
    const more = reasons.length > MAX_REPORTED ? `; and ${reasons.length - MAX_REPORTED} more` : "";
    return { message: `${shown}${more}.` };
  }

  private compile(schema: { readonly [key: string]: unknown }): Promise<ValidateFunction> {
    return this.validators.get(schema, () => this.compileSchema(schema));
  }

  /**
   * The validator of `schema`: from the code cache when some process compiled it before, else a
   * new compile with the engine of its dialect (then written to the cache). Rejects with
   * {@link SchemaCompileError}.
   */
  private async compileSchema(schema: { readonly [key: string]: unknown }): Promise<ValidateFunction> {
    // The compiler's table of `$schema` spellings, so the runtime reads a locked schema in the
    // dialect the compiler checked it in (2020-12 when absent).
    const dialect = (typeof schema.$schema === "string" ? dialectOfUri(schema.$schema) : undefined) ?? "2020-12";
    const { $id: _ignored, $schema: _dialect, ...bare } = schema;
    const text = JSON.stringify(bare);
    const key = this.codeCache.keyOf(dialect, AJV_OPTIONS, text);
    const cached = key === undefined ? undefined : this.codeCache.load(key);
    if (cached) return cached;
    const ajv = await import("../../contract/ajv.js");
    let engine = this.engines.get(dialect);
    let validate: ValidateFunction;
    try {
      if (engine === undefined) {
        engine = ajv.createAjv(dialect, AJV_OPTIONS);
        this.engines.set(dialect, engine);
      }
      validate = engine.compile(bare);
    } catch (error) {
      throw new SchemaCompileError(`the locked inputSchema cannot be compiled: ${(error as Error).message}`);
    }
    if (key !== undefined) {
      try {
        this.codeCache.store(key, (await ajv.loadStandaloneCode())(engine, validate));
      } catch {
        // A validator ajv cannot write out is compiled again next time.
      }
    }
    return validate;
  }
}

/**
 * Each failing field in words ({@link describe}), in ajv's order. A missing required property
 * names the keys the input gave that the schema does not list ({@link unlistedKeys}), and when
 * one of them is most likely meant as that property, says so: `\`note\` is required, but the
 * input has \`text\`, which the schema does not list (did you mean 'note'?)`; that key's own
 * "is not allowed" is then left out, since the one clause says both (README trial of
 * 6 December: the required error alone did not point at the key given).
 */
function describeErrors(all: readonly ErrorObject[], input: unknown): string[] {
  // A failed anyOf/oneOf: the errors of the schemas the input comes closest to, after the
  // keyword's own clause (plugin author's trial 129, finding 15).
  const { errors, choices } = keepClosestBranches(all);
  const extras = new Map<ErrorObject, UnlistedKeys>();
  const named = new Set<string>();
  for (const error of errors) {
    if (error.keyword !== "required") continue;
    const unlisted = unlistedKeys(error, input);
    if (unlisted === undefined) continue;
    extras.set(error, unlisted);
    if (unlisted.meant !== undefined) named.add(`${error.instancePath}\0${unlisted.meant}`);
  }
  const words: string[] = [];
  for (const error of errors) {
    const extra = error.keyword === "additionalProperties" ? (error.params as { additionalProperty?: unknown }).additionalProperty : undefined;
    if (typeof extra === "string" && named.has(`${error.instancePath}\0${extra}`)) continue;
    const choice = choices.get(error) ?? undecided(error);
    if (choice !== undefined) {
      words.push(branchWords(error, input, choice));
      continue;
    }
    if (error.keyword === "oneOf" && Array.isArray(error.params.passingSchemas)) {
      words.push(severalMatchWords(error, input, error.params.passingSchemas as readonly number[]));
      continue;
    }
    const unlisted = extras.get(error);
    words.push(unlisted === undefined ? describe(error, input) : `${describe(error, input)}${unlistedWords(error, input, unlisted)}`);
  }
  return words;
}

/**
 * The clause of a failed `anyOf`/`oneOf` ({@link keepClosestBranches}): for a value whose type fits
 * none of the schemas, the types they accept (`\`filter\` must be an object or null, but it is a
 * number`); else that it matches none, and which schemas are the closest, whose errors follow
 * (`\`filter\` matches none of the 3 schemas its anyOf allows, the closest being the 2nd`).
 */
function branchWords(error: ErrorObject, input: unknown, choice: BranchChoice): string {
  const at = pointerToSegmentsIn(error.instancePath, input);
  const subject = `\`${field(at)}\``;
  if (choice.types !== undefined) {
    return `${subject} ${schemaErrorReason({ keyword: "type", instancePath: error.instancePath, params: { type: choice.types.join(",") } }, valueAt(input, at))}`;
  }
  const none = `${subject} matches none of the ${choice.count} schemas its ${choice.keyword} allows`;
  if (choice.closest.length === choice.count) return none;
  return `${none}, the closest being the ${listOrdinals(choice.closest)}`;
}

/**
 * A failed `anyOf`/`oneOf` whose errors {@link keepClosestBranches} could not tell apart by schema:
 * its clause still says how many schemas it allows, in our words, all of them kept.
 */
function undecided(error: ErrorObject): BranchChoice | undefined {
  const keyword = error.keyword;
  if ((keyword !== "anyOf" && keyword !== "oneOf") || !Array.isArray(error.schema) || error.params.passingSchemas != null) return undefined;
  return { keyword, count: error.schema.length, closest: error.schema.map((_schema: unknown, index: number) => index) };
}

/** The clause of a `oneOf` that failed because several of its schemas matched. */
function severalMatchWords(error: ErrorObject, input: unknown, passing: readonly number[]): string {
  return `\`${field(pointerToSegmentsIn(error.instancePath, input))}\` matches the ${listOrdinals(passing)} of the schemas its oneOf allows, and must match exactly one`;
}

/** `2nd`, `1st and 2nd`, `1st, 2nd and 4th`. */
function listOrdinals(indices: readonly number[]): string {
  const words = indices.map(ordinal);
  return words.length === 1 ? words[0]! : `${words.slice(0, -1).join(", ")} and ${words.at(-1)!}`;
}

/** What {@link unlistedKeys} found beside a missing required property. */
interface UnlistedKeys {
  /** The keys of the object the schema does not list, in the input's order. */
  readonly keys: readonly string[];
  /** The one most likely meant as the missing property, if any. */
  readonly meant?: string;
  /** True when the schema accepts no other properties (`additionalProperties: false`). */
  readonly forbidden: boolean;
}

/** How many unlisted keys a required clause names (the rest are counted). */
const MAX_UNLISTED_NAMED = 3;

function unlistedWords(error: ErrorObject, input: unknown, unlisted: UnlistedKeys): string {
  const at = pointerToSegmentsIn(error.instancePath, input);
  const missing = String((error.params as { missingProperty?: unknown }).missingProperty);
  if (unlisted.meant !== undefined) return `, but the input has \`${field([...at, unlisted.meant])}\`, which the schema does not list (did you mean '${missing}'?)`;
  // Each unlisted key of a schema that forbids them has its own "is not allowed" clause.
  if (unlisted.forbidden) return "";
  const shown = unlisted.keys.slice(0, MAX_UNLISTED_NAMED).map((key) => `\`${field([...at, key])}\``);
  const more = unlisted.keys.length > MAX_UNLISTED_NAMED ? ` and ${unlisted.keys.length - MAX_UNLISTED_NAMED} more` : "";
  const names = more === "" && shown.length > 1 ? `${shown.slice(0, -1).join(", ")} and ${shown.at(-1)!}` : `${shown.join(", ")}${more}`;
  return ` (the input has ${names}, which the schema does not list)`;
}

/**
 * For a `required` error, the keys of that object the schema does not list (in `properties`, nor
 * matched by a `patternProperties` pattern), and the one the input most likely meant as the
 * missing property: one within a typo of its name (`notes` for `note`), else, when the schema
 * accepts no other properties, the only such key. `undefined` when the object has no such key.
 */
function unlistedKeys(error: ErrorObject, input: unknown): UnlistedKeys | undefined {
  const missing = (error.params as { missingProperty?: unknown }).missingProperty;
  const object = valueAt(input, pointerToSegmentsIn(error.instancePath, input));
  if (typeof missing !== "string" || typeof object !== "object" || object === null || Array.isArray(object)) return undefined;
  const schema = (error.parentSchema ?? {}) as { properties?: Record<string, unknown>; patternProperties?: Record<string, unknown>; additionalProperties?: unknown };
  const listed = (key: string): boolean => (schema.properties !== undefined && Object.hasOwn(schema.properties, key)) || Object.keys(schema.patternProperties ?? {}).some((pattern) => matches(pattern, key));
  const keys = Object.keys(object).filter((key) => !listed(key));
  if (keys.length === 0) return undefined;
  const forbidden = schema.additionalProperties === false;
  const meant = didYouMean(missing, keys) ?? (forbidden && keys.length === 1 ? keys[0] : undefined);
  return meant === undefined ? { keys, forbidden } : { keys, meant, forbidden };
}

/** Whether `key` matches a `patternProperties` pattern (JSON Schema's are ECMA-262, unanchored); a pattern that does not compile matches nothing. */
function matches(pattern: string, key: string): boolean {
  try {
    return new RegExp(pattern, "u").test(key);
  } catch {
    return false;
  }
}

/**
 * One failing field in words: the field's path in backquotes, then the shared words of
 * diagnostics/schema-error-words.ts (`\`message\` must be a string, but it is a number`), with
 * the allowed names and a near miss for a property the schema does not accept.
 */
function describe(error: ErrorObject, input: unknown): string {
  const target = schemaErrorTarget(error, input);
  const subject = `\`${field(error.keyword === "required" ? [...target.path, target.property!] : target.path)}\``;
  const reason = schemaErrorReason(error, valueAt(input, pointerToSegmentsIn(error.instancePath, input)));
  if (error.keyword === "additionalProperties") return `${subject} ${reason} (the schema accepts no other properties${listAllowed(error, target.property!)})`;
  return `${subject} ${reason}`;
}

function field(segments: readonly PropertyKey[]): string {
  return segments.length === 0 ? "input" : formatPropertyPath(segments);
}

function listAllowed(error: ErrorObject, unknown: string): string {
  const properties = (error.parentSchema as { properties?: Record<string, unknown> } | undefined)?.properties;
  const names = properties ? Object.keys(properties).sort() : [];
  if (names.length === 0) return "";
  const near = didYouMean(unknown, names) ?? onlyExtension(unknown, names);
  return `; allowed: ${names.join(", ")}${near ? `; did you mean '${near}'?` : ""}`;
}

/**
 * The one allowed name that begins with `given` (an abbreviation: `lang` for `language`, which is
 * too many edits away for {@link didYouMean}), when `given` has at least three characters and no
 * other name begins with it (new-user trial of 6 December).
 */
function onlyExtension(given: string, names: readonly string[]): string | undefined {
  if (given.length < 3) return undefined;
  const longer = names.filter((name) => name.length > given.length && name.toLowerCase().startsWith(given.toLowerCase()));
  return longer.length === 1 ? longer[0] : undefined;
}

function valueAt(input: unknown, segments: readonly PropertyKey[]): unknown {
  let current = input;
  for (const segment of segments) current = (current as Record<PropertyKey, unknown> | undefined)?.[segment];
  return current;
}
