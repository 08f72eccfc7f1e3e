/**
 * Reads the YAML front matter of a `SKILL.md` (Agent Skills specification: "The SKILL.md file
 * must contain YAML frontmatter followed by Markdown content").
 *
 * The front matter runs from a first line `---` to the next line that is exactly `---` (a byte
 * order mark may precede it; CRLF, LF and CR line ends are all accepted). The YAML parser reads
 * the file from its first character, so every node range is already an offset into SKILL.md
 * and every diagnostic points at the right line and column. Only the front matter is parsed,
 * however large the Markdown body is.
 */
import { isMap, isScalar, parseDocument, type Document, type Node as YamlNode } from "yaml";
import { createDiagnostic, type Diagnostic, type SourceLocation } from "../../diagnostics/diagnostic.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { createLineMap, fileStart, locationOf, type LineMap } from "../../common/positions.js";
import { describeKind } from "../../diagnostics/json-kinds.js";

/** One top-level front matter field with where its key and value are written. */
export interface FrontMatterField {
  readonly key: string;
  /** The value as plain data (YAML 1.2 core schema; `null` for an empty value). */
  readonly value: unknown;
  readonly keyLocation: SourceLocation;
  readonly valueLocation: SourceLocation;
  /** Locations of the members of a mapping value (`metadata.version`), by member key. */
  readonly memberLocations: ReadonlyMap<string, SourceLocation>;
}

/** The parsed front matter, or the diagnostic that explains why there is none. */
export type SkillFrontMatter =
  | { readonly ok: true; readonly fields: readonly FrontMatterField[]; readonly location: SourceLocation }
  | { readonly ok: false; readonly diagnostic: Diagnostic };

/** YAML aliases expanded at most this often (a "billion laughs" front matter is an error, not a hang). */
const MAX_ALIAS_COUNT = 100;
const OPENING = /^\uFEFF?---[ \t]*(?:\r\n|\n|\r|$)/;
const CLOSING = /^---[ \t]*$/;

/**
 * Parses the front matter of `text` (the content of `file`, the `SKILL.md` of skills/`directory`/).
 * Never throws; duplicate keys and YAML syntax errors are reported with the parser's position.
 */
export function readSkillFrontMatter(file: string, text: string, directory: string): SkillFrontMatter {
  const lineMap = createLineMap(file, text);
  const opening = OPENING.exec(text);
  if (!opening) return failure(createDiagnostic(Diagnostics.SkillFrontMatterMissing, fileStart(file), [directory]));
  const openingLocation = locationOf(lineMap, 0, opening[0].trimEnd().length);
  const end = findClosingLine(text, lineMap, opening[0].length);
  if (end === undefined) return failure(createDiagnostic(Diagnostics.SkillFrontMatterUnterminated, openingLocation, [directory]));

  // The yaml package breaks lines only at LF and CRLF; a lone CR (old Mac files) is one line end
  // for the editor and for YAML 1.2, so it becomes LF here (same length: offsets stay valid).
  const source = text.slice(0, end).replace(/\r(?!\n)/g, "\n");
  const document = parseDocument(source, { prettyErrors: false, uniqueKeys: true, strict: true, version: "1.2" });
  const error = document.errors[0];
  if (error) {
    const [start, stop] = error.pos;
    return failure(createDiagnostic(Diagnostics.SkillFrontMatterYaml, locationOf(lineMap, start, stop), [directory, firstLine(error.message)]));
  }
  const contents = document.contents;
  if (contents === null || (isScalar(contents) && contents.value === null)) {
    return { ok: true, fields: [], location: openingLocation };
  }
  if (!isMap(contents)) {
    const converted = safeToJs(contents, document);
    const kind = "value" in converted ? describeKind(converted.value) : "not readable";
    return failure(createDiagnostic(Diagnostics.SkillFrontMatterNotMapping, nodeLocation(lineMap, contents, openingLocation), [directory, kind]));
  }
  return readFields(contents.items, document, lineMap, openingLocation, directory);
}

function readFields(
  items: readonly { key: unknown; value: unknown }[],
  document: Document,
  lineMap: LineMap,
  fallback: SourceLocation,
  directory: string,
): SkillFrontMatter {
  const fields: FrontMatterField[] = [];
  for (const pair of items) {
    const keyNode = pair.key as YamlNode | null;
    const valueNode = pair.value as YamlNode | null;
    const key = keyNode === null ? "" : isScalar(keyNode) ? String(keyNode.value) : String(keyNode);
    const keyLocation = nodeLocation(lineMap, keyNode, fallback);
    const converted = valueNode === null ? { value: null } : safeToJs(valueNode, document);
    if ("error" in converted) {
      return failure(createDiagnostic(Diagnostics.SkillFrontMatterYaml, nodeLocation(lineMap, valueNode, keyLocation), [directory, converted.error]));
    }
    fields.push({
      key,
      value: converted.value,
      keyLocation,
      valueLocation: nodeLocation(lineMap, valueNode, keyLocation),
      memberLocations: memberLocations(valueNode, lineMap, keyLocation),
    });
  }
  return { ok: true, fields, location: fallback };
}

function memberLocations(node: YamlNode | null, lineMap: LineMap, fallback: SourceLocation): ReadonlyMap<string, SourceLocation> {
  const locations = new Map<string, SourceLocation>();
  if (!isMap(node)) return locations;
  for (const pair of node.items) {
    const keyNode = pair.key as YamlNode | null;
    if (!isScalar(keyNode)) continue;
    locations.set(String(keyNode.value), nodeLocation(lineMap, (pair.value as YamlNode | null) ?? keyNode, fallback));
  }
  return locations;
}

/** Offset where the closing `---` line starts, scanning line by line from `from`. */
function findClosingLine(text: string, lineMap: LineMap, from: number): number | undefined {
  for (let line = 0; line < lineMap.lineStarts.length; line++) {
    const start = lineMap.lineStarts[line]!;
    if (start < from) continue;
    const next = lineMap.lineStarts[line + 1] ?? text.length;
    if (CLOSING.test(text.slice(start, next).replace(/(\r\n|\n|\r|\u2028|\u2029)$/, ""))) return start;
  }
  return undefined;
}

function nodeLocation(lineMap: LineMap, node: YamlNode | null, fallback: SourceLocation): SourceLocation {
  const range = node?.range;
  return range ? locationOf(lineMap, range[0], range[1]) : fallback;
}

function safeToJs(node: YamlNode, document: Document): { value: unknown } | { error: string } {
  try {
    return { value: node.toJS(document, { maxAliasCount: MAX_ALIAS_COUNT }) };
  } catch (error) {
    return { error: firstLine(error instanceof Error ? error.message : String(error)) };
  }
}

function firstLine(message: string): string {
  return message.split(/\r?\n/)[0]!.replace(/ at line \d+, column \d+:?$/, "").replace(/[.:]$/, "");
}

function failure(diagnostic: Diagnostic): SkillFrontMatter {
  return { ok: false, diagnostic };
}
