/**
 * Converts a parsed YAML node (the `yaml` package's Document API) into plain JSON with the
 * source location of every value and key, so config diagnostics point at `agent.md` lines
 * (issue 3: "diagnostics point at the agent.md line of the offending key").
 *
 * Only the JSON subset of YAML is accepted: mappings with string keys, sequences, strings,
 * numbers, booleans and null. Anything else (custom tags, binary, non-string keys, `.inf`,
 * `.nan`) is reported instead of being converted loosely.
 */
import { isAlias, isMap, isPair, isScalar, isSeq, type Node as YamlNode } from "yaml";
import { createDiagnostic, type Diagnostic, type SourceLocation } from "../../diagnostics/diagnostic.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { locationOf, type LineMap } from "../../common/positions.js";
import { segmentsToPointer } from "../../common/json-pointer.js";
import { setOwn, type JsonValue } from "../../common/json-value.js";
import type { LocatedValue, ValueLocation } from "../model.js";

/** Result of {@link yamlToLocatedValue}; `value` is `undefined` only when the root itself is unusable. */
export interface YamlConversion {
  readonly located: LocatedValue | undefined;
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * Converts `node` (from a document parsed over `map.text`) to JSON.
 *
 * @param node a YAML node; `null`/`undefined` (an empty value) converts to JSON `null`.
 * @param map line map of the whole file, so node ranges become file locations.
 * @param basePath property path segments of `node` inside the front matter (for diagnostics
 *   and for the pointers of the returned locations, which are relative to `node`).
 */
export function yamlToLocatedValue(
  node: unknown,
  map: LineMap,
  basePath: readonly PropertyKey[],
  fallback: SourceLocation,
): YamlConversion {
  const locations = new Map<string, ValueLocation>();
  const diagnostics: Diagnostic[] = [];

  const rangeOf = (n: unknown): SourceLocation => {
    const range = (n as YamlNode | undefined)?.range;
    if (!range) return fallback;
    // A block collection's range runs past its last line end, up to the start of the next line
    // (the closing `---`): the span ends with its text, so a code frame underlines only that.
    let end = range[1];
    while (end > range[0] && /\s/.test(map.text[end - 1]!)) end--;
    return locationOf(map, range[0], end);
  };

  const convert = (n: unknown, segments: PropertyKey[], keyLocation: SourceLocation | undefined): JsonValue | undefined => {
    const valueLocation = n === null || n === undefined ? (keyLocation ?? fallback) : rangeOf(n);
    locations.set(segmentsToPointer(segments), keyLocation ? { value: valueLocation, key: keyLocation } : { value: valueLocation });
    const path = [...basePath, ...segments];
    if (n === null || n === undefined) return null;
    if (isAlias(n)) {
      diagnostics.push(createDiagnostic(Diagnostics.YamlAliasNotSupported, valueLocation, [], { path }));
      return undefined;
    }
    if (isMap(n)) {
      const out: Record<string, JsonValue> = {};
      for (const pair of n.items) {
        if (!isPair(pair)) continue;
        const key = isScalar(pair.key) ? pair.key.value : undefined;
        const keyLoc = rangeOf(pair.key);
        if (typeof key !== "string") {
          diagnostics.push(createDiagnostic(Diagnostics.YamlKeyNotString, keyLoc, [String(key)], { path }));
          continue;
        }
        const value = convert(pair.value, [...segments, key], keyLoc);
        if (value !== undefined) setOwn(out, key, value);
      }
      return out;
    }
    if (isSeq(n)) {
      const out: JsonValue[] = [];
      n.items.forEach((item, index) => {
        const value = convert(item, [...segments, index], undefined);
        out.push(value === undefined ? null : value);
      });
      return out;
    }
    if (isScalar(n)) return scalarToJson(n.value, n.tag, valueLocation, path, diagnostics);
    diagnostics.push(createDiagnostic(Diagnostics.YamlValueNotJson, valueLocation, ["an unsupported YAML node"], { path }));
    return undefined;
  };

  const value = convert(node, [], undefined);
  return { located: value === undefined ? undefined : { value, locations }, diagnostics };
}

function scalarToJson(
  value: unknown,
  tag: string | undefined,
  location: SourceLocation,
  path: readonly PropertyKey[],
  diagnostics: Diagnostic[],
): JsonValue | undefined {
  if (tag !== undefined && !tag.startsWith("tag:yaml.org,2002:")) {
    diagnostics.push(createDiagnostic(Diagnostics.YamlValueNotJson, location, [`a value with the custom tag '${tag}'`], { path }));
    return undefined;
  }
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") {
    if (Number.isFinite(value)) return value;
    diagnostics.push(createDiagnostic(Diagnostics.YamlValueNotJson, location, [`the number ${String(value)}`], { path }));
    return undefined;
  }
  const kind = value instanceof Uint8Array ? "binary data" : typeof value === "bigint" ? "a big integer" : `a ${typeof value} value`;
  diagnostics.push(createDiagnostic(Diagnostics.YamlValueNotJson, location, [kind], { path }));
  return undefined;
}
