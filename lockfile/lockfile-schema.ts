/**
 * The JSON Schema (2020-12) of `plugins.lock` lockfileVersion 1, mirroring `./types.ts`, and
 * the check that a parsed lock has that shape.
 *
 * Every object is closed (`additionalProperties: false`): the format is versioned by
 * `lockfileVersion`, so an unknown member means a hand edit or another tool, not a newer
 * minor format. Paths are relative POSIX paths and versions are exact, so a lock that holds an
 * absolute path or a range is refused.
 */
import type { ErrorObject, ValidateFunction } from "ajv";
import { fixedValidators, type FixedSchemaSpec } from "../contract/precompiled-validators.js";
import { formatPropertyPath } from "../common/property-path.js";
import { pointerToSegmentsIn, valueAtPointer } from "../common/json-pointer.js";
import { schemaErrorProperty, schemaErrorReason, schemaErrorTarget } from "../diagnostics/schema-error-words.js";

const integrity = {
  type: "string",
  pattern: "^sha512-[A-Za-z0-9+/]{86}==$",
  $comment: "an SRI sha512 hash ('sha512-' and 88 base64 characters)",
};
const stringArray = { type: "array", items: { type: "string" } };
const relativePath = {
  type: "string",
  pattern: "^(?![A-Za-z]:)(?!/)(?!.*\\\\)(?!(?:.*/)?\\.\\.?(?:/|$)).+$",
  $comment: "a relative POSIX path without '.' or '..' segments",
};

const source = {
  type: "object",
  required: ["type"],
  properties: { type: { enum: ["local", "npm"] } },
  if: { type: "object", properties: { type: { const: "local" } } },
  then: {
    type: "object",
    properties: { type: true, path: relativePath },
    required: ["path"],
    additionalProperties: false,
  },
  else: {
    type: "object",
    properties: {
      type: true,
      name: {
        type: "string",
        pattern: "^(?:@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*$",
        $comment: "an npm package name",
      },
      version: {
        type: "string",
        pattern: "^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(?:-[0-9A-Za-z.-]+)?(?:\\+[0-9A-Za-z.-]+)?$",
        $comment: "an exact semver version (no range)",
      },
    },
    required: ["name", "version"],
    additionalProperties: false,
  },
};

const toolDescriptor = {
  type: "object",
  properties: {
    definition: { type: "string" },
    factory: { type: "string" },
    description: { type: "string" },
    inputSchema: { type: "object" },
    visibility: { enum: ["visible", "deferred", "hidden"] },
    needsApproval: {
      type: "object",
      properties: { reason: { type: "string" }, sideEffect: { type: "string" } },
      required: ["reason", "sideEffect"],
      additionalProperties: false,
    },
    requiredConfig: stringArray,
    config: { type: "object" },
    tags: stringArray,
    aliases: stringArray,
    namespace: { type: "string" },
    bundle: integrity,
  },
  required: ["definition", "description", "inputSchema", "visibility", "requiredConfig", "config", "tags", "aliases"],
  additionalProperties: false,
};

const tool = {
  type: "object",
  if: { type: "object", properties: { disabled: true }, required: ["disabled"] },
  then: { type: "object", properties: { disabled: { const: true } }, additionalProperties: false },
  else: toolDescriptor,
};

const capability = {
  type: "object",
  properties: {
    source,
    integrity,
    config: { type: "object" },
    tools: { type: "object", additionalProperties: tool },
  },
  required: ["source", "integrity", "config", "tools"],
  additionalProperties: false,
};

const skill = {
  type: "object",
  properties: { path: relativePath, integrity },
  required: ["path", "integrity"],
  additionalProperties: false,
};

/** JSON Schema of a lockfileVersion 1 `plugins.lock` (plain data; safe to publish). */
export const LOCKFILE_SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  properties: {
    lockfileVersion: { const: 1 },
    surfaces: {
      type: "object",
      propertyNames: {
        pattern: "^(?:\\.|subagents/[^/]+(?:/subagents/[^/]+)*)$",
        $comment: "a surface id ('.' or 'subagents/<name>', nested as 'subagents/a/subagents/b')",
      },
      additionalProperties: {
        type: "object",
        properties: {
          capabilities: { type: "object", additionalProperties: capability },
          skills: { type: "object", additionalProperties: skill },
        },
        required: ["capabilities"],
        additionalProperties: false,
      },
    },
  },
  required: ["lockfileVersion", "surfaces"],
  additionalProperties: false,
} as const;

/** The first shape error of a lock, in words, with its property path. */
export interface LockShapeError {
  /** Property path segments (`["surfaces", ".", "capabilities", "x", "integrity"]`). */
  readonly segments: readonly PropertyKey[];
  /** `surfaces["."].capabilities.x.integrity: must be an SRI sha512 hash (…)`. */
  readonly message: string;
}

/** The ajv setup of {@link LOCKFILE_SCHEMA}, precompiled at build time (`contract/precompiled-validators.ts`). */
export const LOCKFILE_SCHEMA_SPEC: FixedSchemaSpec = {
  name: "plugins-lock",
  dialect: "2020-12",
  // The schema is ours and fixed (a test checks it against the meta-schema), so it is not re-checked here.
  options: { allErrors: false, verbose: true, strict: true, validateSchema: false, code: { optimize: false } },
  formats: false,
  schemas: () => [LOCKFILE_SCHEMA],
  exports: { lock: "" },
};

let validator: ValidateFunction | undefined;

/**
 * Checks a parsed lock against {@link LOCKFILE_SCHEMA}.
 *
 * @returns `undefined` when the shape is right, else the first error found (ajv stops there).
 */
export function findLockShapeError(value: unknown): LockShapeError | undefined {
  validator ??= fixedValidators(LOCKFILE_SCHEMA_SPEC).get("lock");
  if (validator(value)) return undefined;
  const error = validator.errors?.[0];
  if (!error) return undefined;
  const target = schemaErrorTarget(error, value);
  // A missing property is reported at the object that lacks it; any other at the member itself.
  const segments = error.keyword === "required" || error.propertyName !== undefined ? [...pointerToSegmentsIn(error.instancePath, value)] : [...target.path];
  const where = segments.length === 0 ? "the root" : formatPropertyPath(segments);
  return { segments, message: `${where}: ${describeError(error, value)}` };
}

/** The lock's own sentences for a missing, unknown or misnamed member; the shared words otherwise. */
function describeError(error: ErrorObject, value: unknown): string {
  const comment = (error.parentSchema as { $comment?: string } | undefined)?.$comment;
  if (error.propertyName !== undefined) return `has the key '${error.propertyName}', which is not ${comment ?? "allowed here"}`;
  switch (error.keyword) {
    case "required":
      return `the required property '${schemaErrorProperty(error)!}' is missing`;
    case "additionalProperties":
      return "is not a property of lockfileVersion 1";
    default:
      return schemaErrorReason(error, valueAtPointer(value, error.instancePath));
  }
}
