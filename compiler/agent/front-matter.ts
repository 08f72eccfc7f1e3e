/**
 * Reads the YAML front matter of an `agent.md` (DESIGN §2) into located JSON.
 *
 * The front matter is the block between a first line `---` and the next line that is exactly
 * `---` or `...`. The YAML parser reads the file from its first byte (BOM and opening `---`
 * included: both are valid YAML), so every node range is already a file offset and every
 * diagnostic points at the right `agent.md` line and column.
 */
import { parseDocument, type YAMLError } from "yaml";
import { createDiagnostic, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { createLineMap, fileStart, locationOf, type LineMap } from "../../common/positions.js";
import { isJsonObject, type JsonObject } from "../../common/json-value.js";
import type { LocatedValue } from "../model.js";
import { findLocation } from "../location-table.js";
import { yamlToLocatedValue } from "./yaml-values.js";
import { yamlErrorWords } from "./yaml-error-words.js";
import { describeKind } from "../../diagnostics/json-kinds.js";

/** The parsed front matter of one `agent.md`. */
export interface FrontMatter {
  /** The front matter mapping with locations (pointer `""` = the mapping); `undefined` when absent or broken. */
  readonly located: LocatedValue<JsonObject> | undefined;
  /** Offset just past the closing delimiter line (where the instructions begin). */
  readonly bodyOffset: number;
  readonly lineMap: LineMap;
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * Where parsed front matters are kept between compiles (the analysis cache,
 * `../static-analysis/analysis-cache.ts`): {@link parseFrontMatter} is a function of the file's
 * path and text alone, so a result kept for exactly that path and text is the one a parse gives
 * (docs/performance.md, "Incremental compiles with packaging", tenth round).
 */
export interface FrontMatterStore {
  /**
   * The front matter of `file` with `text`: the one kept for that path and exactly that text when
   * there is one, else `parse()`'s, which is then kept for the next compile.
   */
  frontMatter(file: string, text: string, parse: () => FrontMatter): FrontMatter;
}

const OPENING = /^\uFEFF?---[ \t]*(\r\n|\n|\r)/;
const CLOSING = /^(?:---|\.\.\.)[ \t]*$/;

/**
 * Parses the front matter of `text` (the content of `file`).
 *
 * Reports: no front matter (warning: the agent then selects no capabilities), an unterminated
 * block, YAML syntax errors (with the parser's position), and a front matter that is not a
 * mapping. Never throws.
 */
export function parseFrontMatter(file: string, text: string): FrontMatter {
  const lineMap = createLineMap(file, text);
  // Only a byte order mark and white space: nothing was written at all.
  if (text.replace(/^\uFEFF/, "").trim() === "") {
    return { located: undefined, bodyOffset: 0, lineMap, diagnostics: [createDiagnostic(Diagnostics.AgentFileEmpty, fileStart(file))] };
  }
  const opening = OPENING.exec(text);
  if (!opening) {
    const misplaced = misplacedFence(text, lineMap);
    return { located: undefined, bodyOffset: 0, lineMap, diagnostics: [misplaced ?? createDiagnostic(Diagnostics.AgentFrontMatterMissing, fileStart(file))] };
  }
  const end = findClosing(text, opening[0].length);
  if (end === undefined) {
    return {
      located: undefined,
      bodyOffset: text.length,
      lineMap,
      diagnostics: [unterminatedFrontMatter(lineMap)],
    };
  }
  const parsed = text.slice(0, end.start);
  const document = parseDocument(parsed, { prettyErrors: false, uniqueKeys: true, strict: true });
  const diagnostics: Diagnostic[] = [];
  if (document.errors.length > 0) {
    diagnostics.push(yamlSyntaxDiagnostic(document.errors, parsed, lineMap));
    return { located: undefined, bodyOffset: end.next, lineMap, diagnostics };
  }
  for (const warning of document.warnings) {
    diagnostics.push(createDiagnostic(Diagnostics.AgentFrontMatterYaml, locationOf(lineMap, warning.pos[0], warning.pos[1]), [warning.message], { severity: "warning" }));
  }

  const contents = document.contents;
  const conversion = yamlToLocatedValue(contents, lineMap, [], locationOf(lineMap, 0, opening[0].length));
  diagnostics.push(...conversion.diagnostics);
  const value = conversion.located?.value;
  if (value === null || value === undefined) {
    // An empty front matter block is an agent without capabilities.
    return { located: { value: {}, locations: conversion.located?.locations ?? new Map() }, bodyOffset: end.next, lineMap, diagnostics };
  }
  if (!isJsonObject(value)) {
    const at = (conversion.located && findLocation(conversion.located.locations, ""))?.value ?? fileStart(file);
    diagnostics.push(createDiagnostic(Diagnostics.AgentFrontMatterNotMapping, at, [describeKind(value, "yaml")]));
    return { located: undefined, bodyOffset: end.next, lineMap, diagnostics };
  }
  return { located: { value, locations: conversion.located!.locations }, bodyOffset: end.next, lineMap, diagnostics };
}

/**
 * AL1005 of a front matter that is never closed, at its opening `---` (not its line end: the
 * frame underlined the next line too, helper-75 K9). `add` reports it in the same words.
 * @param lineMap the line map of the whole file, which starts with the opening `---` (after a BOM).
 */
export function unterminatedFrontMatter(lineMap: LineMap): Diagnostic {
  const start = lineMap.text.startsWith("\uFEFF") ? 1 : 0;
  return createDiagnostic(Diagnostics.AgentFrontMatterUnterminated, locationOf(lineMap, 0, start + 3));
}

/**
 * AL1006 of the YAML parser's `errors` on `parsed` (the file's text up to the closing line), as
 * compile and `add` report it: the first error only (by position), as a parser's later errors
 * most often follow from it (one unclosed `{` gave three AL1006 at one spot, new-user trial M5),
 * with the count of the others, and the plain words and position of `yaml-error-words.ts`.
 * @param errors the parser's errors; at least one.
 */
export function yamlSyntaxDiagnostic(errors: readonly YAMLError[], parsed: string, lineMap: LineMap): Diagnostic {
  const [first, ...rest] = [...errors].sort((a, b) => a.pos[0] - b.pos[0]);
  const others = rest.length === 0 ? "" : ` (the YAML parser reported ${rest.length} more error${rest.length === 1 ? "" : "s"} after this one, which may follow from it)`;
  const words = yamlErrorWords(first!, parsed);
  return createDiagnostic(Diagnostics.AgentFrontMatterYaml, locationOf(lineMap, words.start, words.end), [`${words.message ?? first!.message}${others}`], words.hint ? { hint: words.hint } : {});
}

/** A line of hyphens with spaces or tabs between or around them, at least two hyphens: `----`, ` ---`, `--`, `- - -`. */
const FENCE_LIKE = /^[ \t]*-[ \t]*-[- \t]*$/;

/**
 * AL1030 for a front matter that is there but not read (new-user trial E1): the first line is a
 * near miss of the opening `---` (`----`, ` ---`, `--`), or an exact `---` comes after blank
 * lines, and a later line closes the block (`---`, `...`, or a near miss of them). Without it,
 * such a file was only AL1004: `compile` exited 0 and wrote a lock without any tool, and the
 * front matter became the instructions. A first line of hyphens with no closing line after it is
 * a Markdown rule, left to AL1004. `undefined` when neither case applies.
 */
function misplacedFence(text: string, lineMap: LineMap): Diagnostic | undefined {
  const start = text.startsWith("\uFEFF") ? 1 : 0;
  const { lineStarts } = lineMap;
  const lines = lineStarts.map((at, i) => text.slice(i === 0 ? start : at, lineStarts[i + 1] ?? text.length).replace(/(?:\r\n|[\n\r\u2028\u2029])$/, ""));
  let first = 0;
  while (first < lines.length && lines[first]!.trim() === "") first++;
  const line = lines[first];
  if (line === undefined) return undefined;
  const exact = /^---[ \t]*$/.test(line);
  if (!exact && (first > 0 || !FENCE_LIKE.test(line))) return undefined;
  const closes = lines.slice(first + 1).some((later) => CLOSING.test(later) || FENCE_LIKE.test(later));
  if (!closes) return undefined;
  const lineStart = lineMap.lineStarts[first]! + (first === 0 ? start : 0);
  const at = locationOf(lineMap, lineStart, lineStart + line.length);
  if (exact) {
    return createDiagnostic(Diagnostics.AgentFrontMatterFenceMisplaced, at, [`The front matter's '---' is on line ${first + 1}, not the first line`], {
      hint: `Remove the ${first} line${first === 1 ? "" : "s"} before it: the front matter's '---' must be the file's first line.`,
    });
  }
  return createDiagnostic(Diagnostics.AgentFrontMatterFenceMisplaced, at, [`The first line '${line}' is not the front matter's opening '---'`]);
}

/** Offset of the closing delimiter line's start, and of the line after it. */
function findClosing(text: string, from: number): { start: number; next: number } | undefined {
  let lineStart = from;
  while (lineStart <= text.length) {
    let lineEnd = lineStart;
    while (lineEnd < text.length && text[lineEnd] !== "\n" && text[lineEnd] !== "\r") lineEnd++;
    if (CLOSING.test(text.slice(lineStart, lineEnd))) {
      let next = lineEnd;
      if (text[next] === "\r") next++;
      if (text[next] === "\n") next++;
      return { start: lineStart, next };
    }
    if (lineEnd >= text.length) return undefined;
    lineStart = lineEnd + (text[lineEnd] === "\r" && text[lineEnd + 1] === "\n" ? 2 : 1);
  }
  return undefined;
}
