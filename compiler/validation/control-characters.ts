/**
 * Control characters in the words of a tool the model and the reviewer read (AL4037): its
 * `description`, its approval `reason` and `sideEffect`, its `tags` and `aliases`. A terminal
 * acts on them (ESC starts a sequence that can clear the screen or erase the line `review`
 * printed; CR returns to the line's start), so a description could show a reviewer something
 * other than what the model is offered (helper-89's review, finding 6; README: "a reviewer sees
 * exactly what the model will be offered"). Tab and line feed are text. The printers show such
 * characters as pictures whatever the lock holds (`common/terminal-text.ts`); this check keeps
 * them out of the lock.
 */
import { createDiagnostic, type Diagnostic, type SourceLocation } from "../../diagnostics/diagnostic.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { firstControlCharacter } from "../../common/terminal-text.js";
import { isJsonObject, type JsonObject } from "../../common/json-value.js";
import { locateValue, type LocatedValue } from "../model.js";

/**
 * AL4037 for each model- or reviewer-facing string of descriptor `name` (at `pointer` in the
 * entry) that holds a control character other than tab and line feed, at that string, with its
 * property path. Fields of the wrong type are the shape check's (AL4002); they are skipped here.
 */
export function checkControlCharacters(name: string, descriptor: JsonObject, entry: LocatedValue<JsonObject>, pointer: string, fallback: SourceLocation): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const check = (value: unknown, segments: readonly (string | number)[], what: string) => {
    if (typeof value !== "string") return;
    const found = firstControlCharacter(value);
    if (found === undefined) return;
    const at = locateValue(entry, `${pointer}/${segments.join("/")}`, fallback).value;
    diagnostics.push(createDiagnostic(Diagnostics.ControlCharacter, at, [name, what, found], { path: ["tools", name, ...segments] }));
  };
  check(descriptor["description"], ["description"], "description");
  const approval = descriptor["needsApproval"];
  if (isJsonObject(approval)) {
    check(approval["reason"], ["needsApproval", "reason"], "approval reason");
    check(approval["sideEffect"], ["needsApproval", "sideEffect"], "sideEffect");
  }
  for (const field of ["tags", "aliases"] as const) {
    const list = descriptor[field];
    if (Array.isArray(list)) list.forEach((item, i) => check(item, [field, i], field === "tags" ? "tag" : "alias"));
  }
  return diagnostics;
}
