/**
 * Custom `sideEffect` labels that are near misses of a built-in side effect (AL4032; helper-64
 * M36b). Custom labels are part of the contract (seed "Approval Gates": any other string is kept
 * as a label for the host's policy), so this is a warning, never an error: `"externel"` is
 * almost surely `"external"`, `"internal"` may well be a label a host knows.
 */
import { createDiagnostic, type Diagnostic, type SourceLocation } from "../../diagnostics/diagnostic.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { didYouMean } from "../../common/did-you-mean.js";
import type { JsonObject } from "../../common/json-value.js";
import { BUILT_IN_SIDE_EFFECTS } from "../../contract/approval.js";
import { locateValue, type DefinitionAnalysis, type LocatedValue } from "../model.js";

/**
 * The built-in side effect `label` is a near miss of: one edit away (`"externel"`,
 * `"externa"`), the same letters in another case (`"External"`), or two edits that only swap
 * letters (`"extrenal"`: the same letters in another order). Two edits that change letters make
 * another word (`"internal"` is two from `"external"`) and are left alone: such a label is as
 * likely a host's own. `undefined` for a built-in value itself and for labels not close to one.
 */
export function nearMissSideEffect(label: string): string | undefined {
  const oneEdit = didYouMean(label, BUILT_IN_SIDE_EFFECTS, {}, 1);
  if (oneEdit !== undefined) return oneEdit;
  const twoEdits = didYouMean(label, BUILT_IN_SIDE_EFFECTS, {}, 2);
  return twoEdits !== undefined && sortedLetters(twoEdits) === sortedLetters(label) ? twoEdits : undefined;
}

/** The letters of `word`, lower case, sorted: equal for two words that only swap letters. */
function sortedLetters(word: string): string {
  return [...word.toLowerCase()].sort().join("");
}

/** Where a tool's approval policy is written: the descriptor, and the implementation when readable. */
export interface SideEffectLabelInput {
  readonly name: string;
  /** The descriptor's `needsApproval` as written (its `sideEffect` is checked when it is a string). */
  readonly needsApproval: JsonObject | undefined;
  readonly entry: LocatedValue<JsonObject>;
  /** Pointer of the descriptor in the entry. */
  readonly pointer: string;
  readonly fallback: SourceLocation;
  /** The definition module's analysis, when the definition resolved. */
  readonly analysis: DefinitionAnalysis | undefined;
  /** `"default"` or the factory's export name. */
  readonly exportName: string;
}

/**
 * AL4032 for each place a tool's approval policy names a near-miss side effect: the
 * descriptor's `needsApproval.sideEffect` (at the value), and `defineTool()`'s
 * `approvalRequired(reason, sideEffect)` or `{ reason, sideEffect }` (at the policy), each in
 * its own file, so the editor shows each where it is written.
 */
export function checkSideEffectLabels(input: SideEffectLabelInput): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const written = input.needsApproval?.["sideEffect"];
  if (typeof written === "string") {
    const suggestion = nearMissSideEffect(written);
    if (suggestion !== undefined) {
      const at = locateValue(input.entry, `${input.pointer}/needsApproval/sideEffect`, input.fallback).value;
      diagnostics.push(createDiagnostic(Diagnostics.SideEffectNearMiss, at, [input.name, written, suggestion], { path: ["tools", input.name, "needsApproval", "sideEffect"] }));
    }
  }
  const defined = input.analysis?.definedTools.find((tool) => tool.exportName === input.exportName)?.needsApproval;
  const implemented = defined?.value?.sideEffect;
  const suggestion = implemented === undefined ? undefined : nearMissSideEffect(implemented);
  if (defined && implemented !== undefined && suggestion !== undefined) {
    diagnostics.push(createDiagnostic(Diagnostics.SideEffectNearMiss, defined.location, [input.name, implemented, suggestion]));
  }
  return diagnostics;
}
