/**
 * Reports credential-looking names and values in descriptors and config (DESIGN §4).
 * Detection rules live in `credentials.ts`; this module turns hits into diagnostics.
 */
import { createDiagnostic, type Diagnostic, type SourceLocation } from "../../diagnostics/diagnostic.js";
import { pointerToSegmentsIn, childPointer } from "../../common/json-pointer.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { isJsonObject, type JsonValue } from "../../common/json-value.js";
import { locateValue, type LocatedValue } from "../model.js";
import { credentialKindOfValue, looksLikeCredentialName } from "./credentials.js";

/** A name to check and where it is written (`key: true` points at the key, else the value). */
export interface NamedPlace {
  readonly name: string;
  readonly pointer: string;
  readonly key?: boolean;
}

/**
 * One diagnostic (AL4029) per name that looks like a credential.
 * @param what words for the kind of name ("requiredConfig name", "config key", …).
 */
export function checkCredentialNames(places: readonly NamedPlace[], located: LocatedValue, fallback: SourceLocation, what: string): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  for (const place of places) {
    if (!looksLikeCredentialName(place.name)) continue;
    const found = locateValue(located, place.pointer, fallback);
    diagnostics.push(
      createDiagnostic(Diagnostics.CredentialName, (place.key ? found.key : undefined) ?? found.value, [capitalize(what), place.name], {
        path: pointerToSegmentsIn(place.pointer, located.value),
      }),
    );
  }
  return diagnostics;
}

/**
 * Walks a config value (descriptor `config` or `capabilities.<name>.config`) and reports keys
 * that name credentials and string values shaped like keys or tokens (AL5xxx/AL4029).
 *
 * @param pointer JSON Pointer of the config inside `located`.
 */
export function checkConfigCredentials(value: JsonValue, located: LocatedValue, pointer: string, fallback: SourceLocation): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const stack: { value: JsonValue; pointer: string }[] = [{ value, pointer }];
  while (stack.length > 0) {
    const current = stack.pop()!;
    if (typeof current.value === "string") {
      const kind = credentialKindOfValue(current.value);
      if (kind) {
        const found = locateValue(located, current.pointer, fallback);
        diagnostics.push(
          createDiagnostic(Diagnostics.ConfigValueLooksLikeCredential, found.value, [kind], { path: pointerToSegmentsIn(current.pointer, located.value) }),
        );
      }
    } else if (Array.isArray(current.value)) {
      current.value.forEach((item, i) => stack.push({ value: item, pointer: `${current.pointer}/${i}` }));
    } else if (isJsonObject(current.value)) {
      for (const key of Object.keys(current.value)) {
        const at = childPointer(current.pointer, key);
        if (looksLikeCredentialName(key)) {
          const found = locateValue(located, at, fallback);
          diagnostics.push(createDiagnostic(Diagnostics.CredentialName, found.key ?? found.value, ["Config key", key], { path: pointerToSegmentsIn(at, located.value) }));
        }
        stack.push({ value: current.value[key]!, pointer: at });
      }
    }
  }
  return diagnostics;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
