/**
 * Writes `capabilities.<key>` into the YAML front matter of an `agent.md`, keeping every other
 * byte: comments, key order, quoting, indentation and line ends (issue 3 item 7).
 *
 * How: the front matter is parsed with the yaml Document API, which says where the new lines
 * belong (after the last capability, or as a new `capabilities:` block) and renders them; the
 * lines are spliced into the original text at that offset. The result is parsed again and must
 * equal the intended value. A flow mapping (`capabilities: { a: {} }`) gets the new member
 * inserted before its closing brace, in YAML flow style (`b: { package: "…" }`); an empty one
 * (`capabilities: {}`) becomes a block mapping with the member below it. When a layout is
 * too unusual for a splice (`capabilities: null`), the Document API renders the whole front
 * matter instead, which still keeps comments and order.
 */
import { isDeepStrictEqual } from "node:util";
import { isMap, isScalar, parseDocument, stringify, type Document, type Node, type Pair, type YAMLMap } from "yaml";
import { createDiagnostic, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { createLineMap, locationOf } from "../../common/positions.js";
import { unterminatedFrontMatter, yamlSyntaxDiagnostic } from "../../compiler/agent/front-matter.js";

/** The capability entry `add` writes. */
export interface CapabilityEntry {
  /** npm package name (`@assemblyline-agents/openui`). */
  readonly package: string;
  /** `capabilities.<key>.config`; written only when the entry is created. */
  readonly config?: Readonly<Record<string, unknown>>;
}

/** Result of {@link addCapabilityToAgentMd}. */
export interface AddCapabilityResult {
  /** The new text (the input itself when unchanged or on error). */
  readonly text: string;
  readonly changed: boolean;
  /** AL1005/AL1006 (YAML, as compile reports them), AL6205 (not a mapping), AL6206 (key selects another package); the text is then unchanged. */
  readonly diagnostics: readonly Diagnostic[];
}

const OPENING = /^(\uFEFF?)---[ \t]*(\r\n|\n)/;
const CLOSING = /^(?:---|\.\.\.)[ \t]*\r?$/;
const YAML_OPTIONS = { prettyErrors: false, uniqueKeys: true, strict: true } as const;

/**
 * Adds `capabilities.<key>: { package, config? }` to the front matter of `agentMdText`.
 *
 * - No front matter: one is created at the top (`---`, `capabilities:`, the entry, `---`).
 * - No `capabilities`: a `capabilities:` block is appended to the front matter.
 * - `capabilities.<key>` exists with the same `package`: nothing changes (`changed: false`),
 *   its config is left as the user wrote it.
 * - It exists without a `package` (e.g. config written first, as in the seed): `package` is
 *   added as its first member; its config and comments stay.
 * - It exists with another `package`: AL6206, nothing changes.
 *
 * Line ends follow the file (CRLF stays CRLF). Never throws.
 *
 * @param file used for diagnostic locations (the agent.md path).
 */
export function addCapabilityToAgentMd(agentMdText: string, key: string, entry: CapabilityEntry, file = "agent.md"): AddCapabilityResult {
  const unchanged = (diagnostics: Diagnostic[] = []): AddCapabilityResult => ({ text: agentMdText, changed: false, diagnostics });
  const value = entryValue(entry);
  const opening = OPENING.exec(agentMdText);
  if (!opening) {
    const eol = /\r\n/.test(agentMdText) ? "\r\n" : "\n";
    const block = `---${eol}${withEol(stringify({ capabilities: { [key]: value } }, { lineWidth: 0 }), eol)}---${eol}`;
    const bom = agentMdText.startsWith("\uFEFF") ? "\uFEFF" : "";
    return { text: bom + block + agentMdText.slice(bom.length), changed: true, diagnostics: [] };
  }
  const eol = opening[2]!;
  const end = findClosingLine(agentMdText, opening[0].length);
  const lineMap = createLineMap(file, agentMdText);
  if (end === undefined) {
    return unchanged([unterminatedFrontMatter(lineMap)]);
  }
  const yamlText = agentMdText.slice(0, end);
  const doc = parseDocument(yamlText, YAML_OPTIONS);
  // The same code and words as compile's for the same fault (helper-73: this was AL6204).
  if (doc.errors.length > 0) return unchanged([yamlSyntaxDiagnostic(doc.errors, yamlText, lineMap)]);

  const plan = planEdit({ doc, source: yamlText, unit: indentUnit(doc, yamlText) }, key, value, entry.package);
  if (plan.kind === "error") return unchanged([createDiagnostic(plan.message, locationOf(lineMap, plan.at[0], plan.at[1]), plan.args)]);
  if (plan.kind === "none") return unchanged();
  const expected = plan.expected(doc.toJS() as Record<string, unknown> | null);
  const spliced = plan.splice ? splice(yamlText, plan.splice, eol) : undefined;
  const rendered = spliced !== undefined && sameValue(spliced, expected) ? spliced : renderWithDocumentApi(yamlText, key, value, eol, opening[1]!);
  return { text: rendered + agentMdText.slice(end), changed: true, diagnostics: [] };
}

/**
 * What {@link addCapabilityToAgentMd} would refuse in `agentMdText`, asked before `add` installs
 * anything, so that a refusal leaves package.json, the lockfile and node_modules as they were
 * (helper-73's report, defect 5): YAML errors and tab indentation (AL1006), a front matter or
 * `capabilities` that is not a mapping (AL6205), and, when `key` is known, a
 * `capabilities.<key>` that is not a mapping or (when `pkg` is known too) selects another
 * package (AL6206). An unknown key stands for a key the front matter does not have, so only the
 * structure is checked; an unknown package checks everything but AL6206, which then waits for
 * the installed package's name. The same edit is planned as after the install, on the text alone:
 * nothing is written.
 *
 * @returns the diagnostics, empty when the edit would go ahead (or nothing would change).
 */
export function agentMdProblemsBeforeInstall(agentMdText: string, key: string | undefined, pkg: string | undefined, file = "agent.md"): readonly Diagnostic[] {
  let probeKey = key ?? "assembly-line-add";
  for (let n = 2; key === undefined && agentMdText.includes(probeKey); n++) probeKey = `assembly-line-add-${n}`;
  return addCapabilityToAgentMd(agentMdText, probeKey, { package: pkg ?? ANY_PACKAGE }, file).diagnostics;
}

/** The package of a check made before the package's name is known: it agrees with any `package:` already there. */
const ANY_PACKAGE = "\u0000any package";

type Plan =
  | { readonly kind: "none" }
  | { readonly kind: "error"; readonly message: (typeof Diagnostics)[keyof typeof Diagnostics]; readonly at: readonly [number, number]; readonly args: string[] }
  | { readonly kind: "edit"; readonly splice?: SpliceEdit; readonly expected: (before: Record<string, unknown> | null) => unknown };

/**
 * Insert `lines` (rendered YAML, LF-separated) at `offset`, each line prefixed with `indent`
 * spaces; or, with `raw`, insert exactly that text (inside a flow mapping). `remove` first
 * deletes the text in `[from, to)`, which lies before `offset` (an empty `{}` that becomes a
 * block mapping).
 */
interface SpliceEdit {
  readonly offset: number;
  readonly indent: number;
  readonly lines: string;
  readonly raw?: string;
  readonly remove?: { readonly from: number; readonly to: number };
}

/** The parsed front matter, its source text (file offsets) and its indentation step. */
interface Context {
  readonly doc: Document;
  readonly source: string;
  readonly unit: number;
}

type Capabilities = Record<string, unknown>;
const capabilitiesOf = (before: Record<string, unknown> | null): Capabilities => {
  const caps = before?.capabilities;
  return caps !== null && typeof caps === "object" ? (caps as Capabilities) : {};
};
const withCapabilities = (before: Record<string, unknown> | null, caps: Capabilities): unknown => ({ ...(before ?? {}), capabilities: caps });

function planEdit(ctx: Context, key: string, value: Record<string, unknown>, pkg: string): Plan {
  const root = ctx.doc.contents;
  const block = render({ capabilities: { [key]: value } }, ctx.unit);
  if (root === null || (isScalar(root) && root.value === null)) {
    return { kind: "edit", splice: { offset: ctx.source.length, indent: 0, lines: block }, expected: () => ({ capabilities: { [key]: value } }) };
  }
  if (!isMap(root)) return { kind: "error", message: Diagnostics.AddAgentMdNotAMapping, at: rangeOf(root), args: ["The front matter", key] };
  const capsPair = findPair(root, "capabilities");
  if (!capsPair) {
    // At the end of the front matter, after any closing comments (often a note about what follows).
    const splice = root.flow ? undefined : { offset: ctx.source.length, indent: keyColumn(ctx, root), lines: block };
    return { kind: "edit", ...(splice ? { splice } : {}), expected: (b) => withCapabilities(b, { [key]: value }) };
  }
  const caps = capsPair.value as Node | null;
  if (caps === null || (isScalar(caps) && caps.value === null && caps.source === "")) {
    const after = lineEndAfter(ctx, Math.max((capsPair.key as Node).range![1], caps?.range?.[1] ?? 0));
    const splice = { offset: after, indent: column(ctx, (capsPair.key as Node).range![0]) + ctx.unit, lines: render({ [key]: value }, ctx.unit) };
    return { kind: "edit", splice, expected: (b) => withCapabilities(b, { [key]: value }) };
  }
  if (isScalar(caps) && caps.value === null) return { kind: "edit", expected: (b) => withCapabilities(b, { [key]: value }) };
  if (!isMap(caps)) return { kind: "error", message: Diagnostics.AddAgentMdNotAMapping, at: rangeOf(caps), args: ["capabilities", key] };
  const existing = findPair(caps, key);
  if (!existing) {
    const indent = keyColumn(ctx, caps);
    const splice = caps.flow
      ? caps.items.length === 0
        ? emptyFlowToBlock(ctx, capsPair, caps, render({ [key]: value }, ctx.unit))
        : intoFlowMap(ctx, caps, `${key}: ${renderFlow(value)}`)
      : { offset: skipDeeperComments(ctx, endOfMap(ctx, caps), indent), indent, lines: render({ [key]: value }, ctx.unit) };
    return { kind: "edit", ...(splice ? { splice } : {}), expected: (b) => withCapabilities(b, { ...capabilitiesOf(b), [key]: value }) };
  }
  return planExistingEntry(ctx, existing, key, value, pkg);
}

function planExistingEntry(ctx: Context, existing: Pair, key: string, value: Record<string, unknown>, pkg: string): Plan {
  const node = existing.value as Node | null;
  const keyNode = existing.key as Node;
  const replaced = (b: Record<string, unknown> | null) => withCapabilities(b, { ...capabilitiesOf(b), [key]: value });
  if (node === null || (isScalar(node) && node.value === null)) {
    const empty = node === null || (isScalar(node) && node.source === "");
    const after = lineEndAfter(ctx, Math.max(keyNode.range![1], node?.range?.[1] ?? 0));
    const splice = empty ? { offset: after, indent: column(ctx, keyNode.range![0]) + ctx.unit, lines: render(value, ctx.unit) } : undefined;
    return { kind: "edit", ...(splice ? { splice } : {}), expected: replaced };
  }
  if (!isMap(node)) return { kind: "error", message: Diagnostics.AddAgentMdNotAMapping, at: rangeOf(node), args: [`capabilities.${key}`, "package"] };
  const current = node.get("package");
  if (current === pkg || (pkg === ANY_PACKAGE && current !== undefined)) return { kind: "none" };
  if (current !== undefined) {
    return { kind: "error", message: Diagnostics.AddCapabilityConflict, at: rangeOf(node.get("package", true) as Node), args: [key, String(current), pkg] };
  }
  const first = node.items[0]?.key as Node | undefined;
  const splice = node.flow
    ? intoFlowMap(ctx, node, `package: ${JSON.stringify(pkg)}`, "first")
    : !first?.range
      ? undefined
      : { offset: lineStart(ctx, first.range[0]), indent: column(ctx, first.range[0]), lines: render({ package: pkg }, ctx.unit) };
  return {
    kind: "edit",
    ...(splice ? { splice } : {}),
    expected: (b) => withCapabilities(b, { ...capabilitiesOf(b), [key]: { package: pkg, ...(capabilitiesOf(b)[key] as object | null) } }),
  };
}

/** Renders a value as one-line YAML flow style (`{ package: "@scope/name" }`), for a member of a flow mapping. */
function renderFlow(value: unknown): string {
  return stringify(value, { lineWidth: 0, collectionStyle: "flow" }).trim();
}

/**
 * `capabilities: {}` becomes a block mapping holding the new member (issue 10 item 7: an empty
 * flow map is how a user writes "no capabilities yet", not a style to keep): the `{}` (and the
 * spaces before it) is removed and the member goes on the lines below, one indentation step
 * deeper than `capabilities`. A comment after the braces stays on the `capabilities:` line.
 * `undefined` when the braces are not where the ranges say.
 */
function emptyFlowToBlock(ctx: Context, capsPair: Pair, caps: YAMLMap, lines: string): SpliceEdit | undefined {
  const [start, end] = caps.range ?? [0, 0];
  if (ctx.source[start] !== "{" || ctx.source[end - 1] !== "}") return undefined;
  let from = start;
  while (from > 0 && (ctx.source[from - 1] === " " || ctx.source[from - 1] === "\t")) from--;
  const keyStart = (capsPair.key as Node).range![0];
  return { offset: lineEndAfter(ctx, end), indent: column(ctx, keyStart) + ctx.unit, lines, remove: { from, to: end } };
}

/** Renders a value as block YAML (LF line ends), one member per line. */
function render(value: unknown, unit: number): string {
  return stringify(value, { lineWidth: 0, indent: unit });
}

/**
 * A raw splice of `member` into the flow mapping `map`: before its closing brace (`last`, after
 * a comma when it has members), or right after its opening brace (`first`). `undefined` when
 * the braces are not where the ranges say.
 */
function intoFlowMap(ctx: Context, map: YAMLMap, member: string, where: "first" | "last" = "last"): SpliceEdit | undefined {
  const [start, end] = map.range ?? [0, 0];
  if (ctx.source[start] !== "{") return undefined;
  const close = ctx.source.lastIndexOf("}", end - 1);
  if (close <= start) return undefined;
  const inner = ctx.source.slice(start + 1, close);
  if (map.items.length === 0) return { offset: start + 1, indent: 0, lines: "", raw: inner === "" ? ` ${member} ` : ` ${member}` };
  if (where === "first") return { offset: start + 1, indent: 0, lines: "", raw: ` ${member},` };
  return { offset: start + 1 + inner.trimEnd().length, indent: 0, lines: "", raw: `, ${member}` };
}

function splice(yamlText: string, edit: SpliceEdit, eol: string): string {
  if (edit.raw !== undefined) return yamlText.slice(0, edit.offset) + edit.raw + yamlText.slice(edit.offset);
  const pad = " ".repeat(edit.indent);
  const lines = edit.lines.replace(/\n$/, "").split("\n").map((line) => pad + line).join(eol) + eol;
  const before = edit.remove ? yamlText.slice(0, edit.remove.from) + yamlText.slice(edit.remove.to, edit.offset) : yamlText.slice(0, edit.offset);
  const needsBreak = before.length > 0 && !before.endsWith("\n");
  return before + (needsBreak ? eol : "") + lines + yamlText.slice(edit.offset);
}

/** Fallback: the whole front matter rendered by the Document API (comments and order kept). */
function renderWithDocumentApi(yamlText: string, key: string, value: Record<string, unknown>, eol: string, bom: string): string {
  const doc = parseDocument(yamlText, YAML_OPTIONS);
  const unit = indentUnit(doc, yamlText);
  const root = doc.contents;
  if (!isMap(root)) doc.contents = doc.createNode({ capabilities: { [key]: value } }) as typeof doc.contents;
  else {
    const caps = root.get("capabilities", true);
    if (!isMap(caps)) (root as YAMLMap).set("capabilities", doc.createNode({ [key]: value }));
    else {
      const existing = caps.get(key, true);
      if (isMap(existing)) (existing as YAMLMap).items.unshift(doc.createPair("package", value.package));
      else (caps as YAMLMap).set(key, doc.createNode(value));
    }
  }
  const text = doc.toString({ lineWidth: 0, indent: unit });
  const withMarker = text.startsWith("---") ? text : `---\n${text}`;
  return bom + withEol(withMarker, eol);
}

function sameValue(yamlText: string, expected: unknown): boolean {
  const doc = parseDocument(yamlText, YAML_OPTIONS);
  return doc.errors.length === 0 && isDeepStrictEqual(doc.toJS(), expected);
}

function findPair(map: YAMLMap, key: string): Pair | undefined {
  return map.items.find((pair) => (isScalar(pair.key) ? pair.key.value === key : pair.key === key)) as Pair | undefined;
}

/** The offset just past the line end of a block map's last member. */
function endOfMap(ctx: Context, map: YAMLMap): number {
  const last = map.items[map.items.length - 1];
  const keyEnd = (last?.key as Node | null)?.range?.[1] ?? map.range?.[1] ?? 0;
  const valueEnd = (last?.value as Node | null)?.range?.[1] ?? 0;
  return lineEndAfter(ctx, Math.max(keyEnd, valueEnd));
}

/**
 * Moves `offset` (a line start) past comment lines indented deeper than `indent`: they belong
 * to the member above (`# trailing in map`), so the new member goes after them.
 */
function skipDeeperComments(ctx: Context, offset: number, indent: number): number {
  let at = offset;
  for (;;) {
    const newline = ctx.source.indexOf("\n", at);
    const line = ctx.source.slice(at, newline === -1 ? ctx.source.length : newline);
    const match = /^( *)#/.exec(line);
    if (!match || match[1]!.length <= indent || newline === -1) return at;
    at = newline + 1;
  }
}

/** `offset` when it starts a line, else the offset just past the end of its line. */
function lineEndAfter(ctx: Context, offset: number): number {
  if (offset > 0 && ctx.source[offset - 1] === "\n") return offset;
  const newline = ctx.source.indexOf("\n", offset);
  return newline === -1 ? ctx.source.length : newline + 1;
}

function lineStart(ctx: Pick<Context, "source">, offset: number): number {
  return ctx.source.lastIndexOf("\n", offset - 1) + 1;
}

function column(ctx: Pick<Context, "source">, offset: number): number {
  return offset - lineStart(ctx, offset);
}

function keyColumn(ctx: Context, map: YAMLMap): number {
  const first = map.items[0]?.key as Node | undefined;
  return first?.range ? column(ctx, first.range[0]) : 0;
}

/** The indentation step of the first nested block mapping, depth first (2 when there is none). */
function indentUnit(doc: Document, source: string): number {
  const search = (map: YAMLMap): number | undefined => {
    for (const pair of map.items) {
      const child = pair.value;
      const parentKey = pair.key as Node | null;
      if (!isMap(child) || child.flow || !parentKey?.range) continue;
      const childKey = child.items[0]?.key as Node | undefined;
      if (childKey?.range) {
        const step = column({ source }, childKey.range[0]) - column({ source }, parentKey.range[0]);
        if (step > 0) return step;
      }
      const nested = search(child);
      if (nested !== undefined) return nested;
    }
    return undefined;
  };
  return isMap(doc.contents) && !doc.contents.flow ? (search(doc.contents) ?? 2) : 2;
}

function rangeOf(node: Node | null | undefined): readonly [number, number] {
  return node?.range ? [node.range[0], node.range[1]] : [0, 0];
}

/** Offset of the closing `---`/`...` line, searching from `from`; `undefined` when unterminated. */
function findClosingLine(text: string, from: number): number | undefined {
  let start = from;
  for (;;) {
    const newline = text.indexOf("\n", start);
    if (CLOSING.test(text.slice(start, newline === -1 ? text.length : newline))) return start;
    if (newline === -1) return undefined;
    start = newline + 1;
  }
}

function entryValue(entry: CapabilityEntry): Record<string, unknown> {
  return entry.config === undefined ? { package: entry.package } : { package: entry.package, config: { ...entry.config } };
}

function withEol(text: string, eol: string): string {
  return eol === "\n" ? text : text.replace(/\r?\n/g, eol);
}
