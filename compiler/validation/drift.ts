/**
 * The descriptor-versus-implementation drift check (DESIGN §3): where the definition module's
 * `defineTool({...})` is statically readable, its description, inputSchema and approval
 * policy must equal the descriptor's, which is what the model sees and the lock records.
 */
import * as path from "node:path";
import { createDiagnostic, type Diagnostic, type RelatedLocation, type SourceLocation } from "../../diagnostics/diagnostic.js";
import { formatPropertyPath } from "../../common/property-path.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { isJsonObject, type JsonObject, type JsonValue } from "../../common/json-value.js";
import { locateValue, type DefinitionAnalysis, type LocatedValue } from "../model.js";

/** Inputs of {@link checkDrift}. */
export interface DriftInput {
  readonly name: string;
  readonly descriptor: JsonObject;
  /** The descriptor's approval policy with sideEffect defaulted. */
  readonly needsApproval: { readonly reason: string; readonly sideEffect: string } | undefined;
  readonly analysis: DefinitionAnalysis;
  /** `"default"` or the factory's export name. */
  readonly exportName: string;
  readonly entry: LocatedValue<JsonObject>;
  /** Pointer of the descriptor in the entry. */
  readonly pointer: string;
  readonly fallback: SourceLocation;
  /** definition as written, for messages. */
  readonly definition: string;
  /**
   * Fields not to compare because the descriptor's own value is already reported as wrong
   * (an `inputSchema` with schema errors): the drift would be a consequence, not a cause.
   */
  readonly skip?: readonly ("description" | "inputSchema" | "needsApproval")[];
}

/**
 * Compares descriptor and implementation. A field the implementation computes at run time is
 * simply not compared. An approval policy present in the implementation but absent from the
 * descriptor is drift too: the runtime gates on the descriptor, so the call would run unapproved.
 */
export function checkDrift(input: DriftInput): Diagnostic[] {
  const defined = input.analysis.definedTools.find((tool) => tool.exportName === input.exportName);
  if (!defined) return [];
  const diagnostics: Diagnostic[] = [];
  const report = (field: string, implementation: SourceLocation, said: string): void => {
    const at = locateValue(input.entry, `${input.pointer}/${field}`, input.fallback);
    const where = field === "needsApproval" && !input.needsApproval ? locateValue(input.entry, input.pointer, input.fallback) : at;
    diagnostics.push(
      createDiagnostic(Diagnostics.DescriptorDrift, (where.key ?? where.value), [input.name, field, input.definition], {
        path: ["tools", input.name, field],
        related: [{ ...implementation, message: `defineTool() in ${path.basename(input.analysis.file)} says ${said}` }],
      }),
    );
  };
  if (defined.description && defined.description.value !== input.descriptor["description"]) {
    report("description", defined.description.location, JSON.stringify(defined.description.value));
  }
  if (defined.inputSchema && !input.skip?.includes("inputSchema") && !jsonEqual(defined.inputSchema.value, input.descriptor["inputSchema"] ?? null)) {
    const difference = firstDifference(input.descriptor["inputSchema"] ?? null, defined.inputSchema.value, []);
    const where = difference.path.length > 0 ? formatPropertyPath(difference.path) : "the root";
    report("inputSchema", defined.inputSchema.location, `a different schema: at ${where} it has ${show(difference.implementation)}, the descriptor ${show(difference.descriptor)}`);
  }
  if (defined.needsApproval) {
    const implementation = defined.needsApproval.value;
    const same =
      implementation === null
        ? input.needsApproval === undefined
        : input.needsApproval !== undefined && implementation.reason === input.needsApproval.reason && implementation.sideEffect === input.needsApproval.sideEffect;
    if (!same) {
      report("needsApproval", defined.needsApproval.location, implementation === null ? "no approval" : JSON.stringify(implementation));
    }
  }
  return diagnostics;
}

/**
 * The definition's place to name beside a descriptor's inputSchema errors (AL4017–AL4025) when
 * `defineTool({...})` in the definition module says the very same schema: the same mistake is
 * then written twice, and the drift check, which compares only a sound descriptor, would not
 * report the second copy until the first is fixed (new-user trial of 6 December, C8: a
 * `type: "strng"` in both `index.ts` and `hello.ts` was reported in `index.ts` alone).
 *
 * @returns the related location (the definition's inputSchema), or `undefined` when the export
 *   has no statically readable inputSchema or it differs from the descriptor's.
 */
export function sameSchemaInDefinition(analysis: DefinitionAnalysis, exportName: string, descriptorSchema: JsonValue | undefined): RelatedLocation | undefined {
  const defined = analysis.definedTools.find((tool) => tool.exportName === exportName)?.inputSchema;
  if (!defined || descriptorSchema === undefined || !jsonEqual(defined.value, descriptorSchema)) return undefined;
  return { ...defined.location, message: `defineTool() in ${path.basename(analysis.file)} says the same inputSchema: correct it there too` };
}

/** Where two JSON values first differ (depth first, keys in the descriptor's order, then the rest). */
function firstDifference(descriptor: JsonValue, implementation: JsonValue, at: PropertyKey[]): { path: PropertyKey[]; descriptor: JsonValue | undefined; implementation: JsonValue | undefined } {
  if (isJsonObject(descriptor) && isJsonObject(implementation)) {
    const keys = [...Object.keys(descriptor), ...Object.keys(implementation).filter((k) => !Object.hasOwn(descriptor, k))];
    for (const key of keys) {
      const a = Object.hasOwn(descriptor, key) ? descriptor[key]! : undefined;
      const b = Object.hasOwn(implementation, key) ? implementation[key]! : undefined;
      if (a === undefined || b === undefined) return { path: [...at, key], descriptor: a, implementation: b };
      if (!jsonEqual(a, b)) return firstDifference(a, b, [...at, key]);
    }
  }
  if (Array.isArray(descriptor) && Array.isArray(implementation) && descriptor.length === implementation.length) {
    const index = descriptor.findIndex((item, i) => !jsonEqual(item, implementation[i]!));
    if (index >= 0) return firstDifference(descriptor[index]!, implementation[index]!, [...at, index]);
  }
  return { path: at, descriptor, implementation };
}

/** A short rendering of a JSON value for messages ("nothing" when absent). */
function show(value: JsonValue | undefined): string {
  if (value === undefined) return "nothing";
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

/**
 * Structural JSON equality; object key order does not matter. Plain loops, no callback per item
 * or key: it runs once per tool of a compile, mostly in V8's interpreter (issue 14 item 1).
 */
export function jsonEqual(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  const arrayA = Array.isArray(a);
  if (arrayA !== Array.isArray(b)) return false;
  if (arrayA) {
    const items = b as readonly JsonValue[];
    if (a.length !== items.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i]!, items[i]!)) return false;
    return true;
  }
  const objectA = a as { readonly [key: string]: JsonValue };
  const objectB = b as { readonly [key: string]: JsonValue };
  const keys = Object.keys(objectA);
  if (keys.length !== Object.keys(objectB).length) return false;
  for (const key of keys) if (!Object.hasOwn(objectB, key) || !jsonEqual(objectA[key]!, objectB[key]!)) return false;
  return true;
}
