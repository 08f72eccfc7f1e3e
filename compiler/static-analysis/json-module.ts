/**
 * JSON files imported by an entry (`import schema from "./schema.json"`), parsed as Node.js
 * parses JSON modules (strict JSON; a leading byte order mark is ignored) into a located tree
 * whose spans point into the JSON file.
 */
import { parseTree, type Node as JsonNode, type ParseError } from "jsonc-parser";
import type { Located, Member, Span } from "./located-tree.js";
import { findJsonNestingBeyond } from "../../common/json-nesting.js";
import { jsonSyntaxWords } from "../../common/json-text.js";
import { MAX_NESTING } from "./nesting-limit.js";
import type { TextFile } from "./text-file.js";

/** A problem in a JSON file, as offsets into its text as read. */
export interface JsonProblem {
  readonly kind: "syntax" | "too-deep";
  readonly start: number;
  readonly end: number;
  /** For `syntax`: what is wrong, in words ("a comma is missing"). */
  readonly words: string;
}

/** A parsed JSON file: its value (when it parsed) and its problems. */
export interface JsonDocument {
  readonly file: TextFile;
  readonly root: Located | undefined;
  readonly problems: readonly JsonProblem[];
}

/** Parses a JSON file; never throws. */
export function parseJsonDocument(file: TextFile): JsonDocument {
  const shift = file.text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const text = shift ? file.text.slice(1) : file.text;
  // jsonc-parser recurses once per level; refuse absurd nesting before it can overflow the stack.
  const deep = findDeepJsonNesting(text);
  if (deep !== undefined) return { file, root: undefined, problems: [{ kind: "too-deep", start: deep + shift, end: deep + shift + 1, words: "" }] };
  const errors: ParseError[] = [];
  let tree: JsonNode | undefined;
  try {
    tree = parseTree(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return { file, root: undefined, problems: [{ kind: "too-deep", start: 0, end: 0, words: "" }] };
  }
  // jsonc-parser may report several errors at one offset (a cascade); keep the first.
  const firstAtOffset = errors.filter((e, i) => i === 0 || errors[i - 1]!.offset !== e.offset);
  const syntax = firstAtOffset.map((e) => ({ kind: "syntax" as const, start: e.offset + shift, end: e.offset + e.length + shift, words: jsonSyntaxWords(e.error) }));
  if (syntax.length > 0 || tree === undefined) {
    return { file, root: undefined, problems: syntax.length > 0 ? syntax : [{ kind: "syntax", start: shift, end: shift, words: "the file is empty" }] };
  }
  const strict = strictJsonProblem(text, shift);
  if (strict) return { file, root: undefined, problems: [strict] };
  const problems: JsonProblem[] = [];
  const root = toLocated(tree, file, shift, 0, problems);
  return { file, root, problems };
}

/** Offset of the first `{` or `[` that opens a level deeper than {@link MAX_NESTING}, or `undefined`. */
function findDeepJsonNesting(text: string): number | undefined {
  return findJsonNestingBeyond(text, MAX_NESTING);
}

/** JSON.parse is what Node.js runs; anything jsonc-parser tolerates but it rejects is an error. */
function strictJsonProblem(text: string, shift: number): JsonProblem | undefined {
  try {
    JSON.parse(text);
    return undefined;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { kind: "syntax", start: shift, end: shift, words: message.replace(/\.$/, "") };
  }
}

function toLocated(node: JsonNode, file: TextFile, shift: number, depth: number, problems: JsonProblem[]): Located | undefined {
  const span: Span = { file, start: node.offset + shift, end: node.offset + node.length + shift };
  if (depth >= MAX_NESTING) {
    problems.push({ kind: "too-deep", start: span.start, end: span.end, words: "" });
    return undefined;
  }
  switch (node.type) {
    case "object":
      return objectToLocated(node, file, shift, depth, problems, span);
    case "array": {
      const items: Located[] = [];
      let partial = false;
      let height = 1;
      for (const child of node.children ?? []) {
        const item = toLocated(child, file, shift, depth + 1, problems);
        if (item) items.push(item);
        else partial = true;
        if (item && item.height + 1 > height) height = item.height + 1;
      }
      return { kind: "array", items, span, partial, height };
    }
    case "number":
      if (!Number.isFinite(node.value)) {
        problems.push({ kind: "syntax", start: span.start, end: span.end, words: "the number is too large to represent" });
        return undefined;
      }
      return { kind: "leaf", value: node.value as number, span, partial: false, height: 1 };
    default:
      return { kind: "leaf", value: node.value as string | boolean | null, span, partial: false, height: 1 };
  }
}

function objectToLocated(node: JsonNode, file: TextFile, shift: number, depth: number, problems: JsonProblem[], span: Span): Located {
  const members = new Map<string, Member>();
  let partial = false;
  let height = 1;
  for (const property of node.children ?? []) {
    const [keyNode, valueNode] = property.children ?? [];
    if (!keyNode || !valueNode) continue;
    const value = toLocated(valueNode, file, shift, depth + 1, problems);
    if (!value) {
      partial = true;
      continue;
    }
    const key: Span = { file, start: keyNode.offset + shift, end: keyNode.offset + keyNode.length + shift };
    members.set(String(keyNode.value), { key, node: value });
    height = Math.max(height, value.height + 1);
  }
  return { kind: "object", members, span, partial, height };
}
