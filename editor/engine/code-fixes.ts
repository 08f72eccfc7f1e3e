/**
 * Quick fixes for diagnostics that already know the fix (issue 9):
 * - `did-you-mean`: a diagnostic whose hint starts "Did you mean 'x'?" (unknown entry fields
 *   AL4001, enum values AL4003, schema keywords AL4020, undeclared names, definition paths,
 *   agent.md keys, …) replaces the misspelt key or value at its span with `x`, keeping the
 *   quotes as written. Offered only when the span holds exactly the name the message quotes,
 *   so a reference (`type: T`) is never rewritten into something else, or a string literal
 *   (the value itself: AL4019's message lists the allowed types, not the one written).
 * - `drift-from-definition` / `drift-to-definition` (AL4026): copies the `defineTool({...})`
 *   value into the descriptor, or the descriptor's value into `defineTool({...})`.
 *
 * Detection stays in the compiler; this module only turns a diagnostic plus the text it points
 * at into edits (STYLE: detect in one place, render in another).
 */
import * as path from "node:path";
import type { StaticAnalyzer } from "../../compiler/static-analysis/static-analyzer.js";
import { findLocation } from "../../compiler/location-table.js";
import { escapePointerSegment } from "../../common/json-pointer.js";
import { isJsonObject, type JsonValue } from "../../common/json-value.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import type { Diagnostic, SourceLocation } from "../../diagnostics/diagnostic.js";
import type { CodeFix, TextEdit } from "./types.js";
import { offsetAt, positionAt } from "./offsets.js";

/** What fix builders may read. */
export interface FixContext {
  /** The current text of a file (buffer or disk), or `undefined`. */
  text(file: string): string | undefined;
  /** The plugin folder of a file, when it is in one. */
  pluginDirOf(file: string): string | undefined;
  /** The engine's static analyzer (its results are cached). */
  readonly analyzer: StaticAnalyzer;
}

const DID_YOU_MEAN = /^Did you mean '([^']+)'\?/;
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const PLAIN_TOKEN = /^[A-Za-z0-9_$.\-]+$/;
const QUOTED = /^(["'`])(.*)\1$/s;
const MODULE = /\.(?:[cm]?[jt]s|[jt]sx)$/i;

/** The fixes of `diagnostics` (all of one file), in diagnostic order. Never throws for odd input. */
export function fixesFor(diagnostics: readonly Diagnostic[], context: FixContext): CodeFix[] {
  const fixes: CodeFix[] = [];
  for (const diagnostic of diagnostics) {
    const renamed = didYouMeanFix(diagnostic, context);
    if (renamed) fixes.push(renamed);
    if (diagnostic.code === Diagnostics.DescriptorDrift.code) fixes.push(...driftFixes(diagnostic, context));
  }
  return fixes;
}

function didYouMeanFix(diagnostic: Diagnostic, context: FixContext): CodeFix | undefined {
  const suggestion = DID_YOU_MEAN.exec(diagnostic.hint ?? "")?.[1];
  if (suggestion === undefined || diagnostic.endLine === undefined || diagnostic.endColumn === undefined) return undefined;
  const text = context.text(diagnostic.file);
  if (text === undefined) return undefined;
  const span = spanOf(text, diagnostic);
  const written = text.slice(span.start, span.end);
  const quoted = QUOTED.exec(written);
  const name = quoted ? quoted[2]! : written;
  // A reference (`type: T`) must be the name the message quotes; a string literal at the span is
  // the value itself, also when the message lists what is allowed instead (AL4019's types).
  if (name === suggestion || (!quoted && !mentions(diagnostic.message, name))) return undefined;
  let newText: string;
  if (quoted) {
    const quote = quoted[1]!;
    if (/[\\\n]/.test(name) || suggestion.includes(quote) || suggestion.includes("\\")) return undefined;
    newText = `${quote}${suggestion}${quote}`;
  } else if (MODULE.test(diagnostic.file)) {
    if (!IDENTIFIER.test(name)) return undefined;
    newText = IDENTIFIER.test(suggestion) ? suggestion : JSON.stringify(suggestion);
  } else {
    if (!PLAIN_TOKEN.test(name) || !PLAIN_TOKEN.test(suggestion)) return undefined;
    newText = suggestion;
  }
  return { kind: "did-you-mean", title: `Change '${name}' to '${suggestion}'`, diagnostic, edits: [edit(diagnostic.file, text, span.start, span.end, newText)] };
}

/** True when the message quotes `name` ('name' or as JSON), so the span is the offending text. */
function mentions(message: string, name: string): boolean {
  return message.includes(`'${name}'`) || message.includes(JSON.stringify(name));
}

function driftFixes(diagnostic: Diagnostic, context: FixContext): CodeFix[] {
  const [, toolName, field] = /^tools\.(.+)\.(description|inputSchema|needsApproval)$/.exec(diagnostic.path ?? "") ?? [];
  const implementation = diagnostic.related?.[0];
  const pluginDir = context.pluginDirOf(diagnostic.file);
  if (!toolName || !field || !implementation || implementation.endLine === undefined || !pluginDir) return [];
  const entry = context.analyzer.analyzeEntry(diagnostic.file, pluginDir).entry;
  const tools = entry?.value["tools"];
  const tool = isJsonObject(tools) ? tools[toolName] : undefined;
  if (!entry || !isJsonObject(tool) || typeof tool["definition"] !== "string") return [];
  const definitionFile = path.resolve(pluginDir, tool["definition"]);
  if (path.resolve(implementation.file) !== definitionFile) return [];
  const defined = context.analyzer
    .analyzeDefinition(definitionFile, pluginDir)
    .definedTools.map((t) => t[field as "description" | "inputSchema" | "needsApproval"])
    .find((value) => value !== undefined && value.location.line === implementation.line && value.location.column === implementation.column);
  if (!defined) return [];
  const fixes: CodeFix[] = [];
  const descriptorValue = tool[field];
  const entryText = context.text(diagnostic.file);
  const definitionText = context.text(definitionFile);
  const at = findLocation(entry.locations, `/tools/${escapePointerSegment(toolName)}/${field}`);
  // Into the descriptor: only where the descriptor writes the field (a missing needsApproval is not inserted).
  if (entryText !== undefined && at?.value.endLine !== undefined && descriptorValue !== undefined && defined.value !== null) {
    const span = spanOf(entryText, at.value);
    fixes.push({
      kind: "drift-from-definition",
      title: `Copy ${field} from defineTool() in ${path.basename(definitionFile)} into the descriptor`,
      diagnostic,
      edits: [edit(diagnostic.file, entryText, span.start, span.end, render(defined.value as JsonValue, entryText, span.start))],
    });
  }
  if (definitionText !== undefined && descriptorValue !== undefined) {
    const span = spanOf(definitionText, implementation);
    fixes.push({
      kind: "drift-to-definition",
      title: `Copy the descriptor's ${field} into defineTool() in ${path.basename(definitionFile)}`,
      diagnostic,
      edits: [edit(definitionFile, definitionText, span.start, span.end, render(descriptorValue, definitionText, span.start))],
    });
  }
  return fixes;
}

function spanOf(text: string, location: SourceLocation): { start: number; end: number } {
  const start = offsetAt(text, location.line, location.column);
  const end = location.endLine !== undefined && location.endColumn !== undefined ? offsetAt(text, location.endLine, location.endColumn) : start;
  return { start, end: Math.max(start, end) };
}

/**
 * A JSON value as source text for `text` at `offset`: continued lines indented like the line it
 * starts on, with the file's line ending.
 */
function render(value: JsonValue, text: string, offset: number): string {
  let lineStart = offset;
  while (lineStart > 0 && text[lineStart - 1] !== "\n" && text[lineStart - 1] !== "\r") lineStart--;
  const indent = /^[ \t]*/.exec(text.slice(lineStart, offset))![0];
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  return JSON.stringify(value, null, 2).split("\n").join(`${eol}${indent}`);
}

function edit(file: string, text: string, start: number, end: number, newText: string): TextEdit {
  const from = positionAt(text, start);
  const to = positionAt(text, end);
  return { file, start, end, newText, range: { line: from.line, column: from.column, endLine: to.line, endColumn: to.column } };
}
