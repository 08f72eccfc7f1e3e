/**
 * Plain words for the YAML parser's errors in agent.md front matter (AL1006; new-user trials
 * helper-67 and helper-69: "Flow map in block collection must be sufficiently indented and end
 * with a }", with the caret on the closing `---`). The parser's message stays in AL1006's text;
 * this module adds the hint, by the `yaml` package's error code (its documented
 * `YAMLError.code`), written with the user's own key and value where the fix is knowable, and
 * moves the position of an unclosed bracket or quote to where it opens, and of a misaligned key
 * to the key. The one place these words live.
 */
import type { YAMLError } from "yaml";

/** Where an AL1006 points and what its hint says. */
export interface YamlErrorWords {
  /** Offsets in the parsed text: the parser's, or where the mistake is. */
  readonly start: number;
  readonly end: number;
  readonly hint: string | undefined;
  /** Words that replace the parser's message, when the mistake is elsewhere than where it looked. */
  readonly message?: string;
}

/** Hints that need nothing of the text, by `YAMLError.code` (the codes agent.md authors meet). */
const HINTS: Readonly<Record<string, string>> = {
  TAB_AS_INDENT: "Indent with spaces: YAML does not allow tabs for indentation.",
  MULTILINE_IMPLICIT_KEY: "Write each key with a colon and a space before its value (name: value), or quote a text that runs over several lines.",
};

/**
 * The position and hint for `error`, one of the parser's errors on `text` (the text it parsed,
 * from the file's first byte).
 */
export function yamlErrorWords(error: YAMLError, text: string): YamlErrorWords {
  const [start, end] = error.pos;
  const flow = /^Flow (map|sequence) in block collection/.exec(error.message);
  if (error.code === "BAD_INDENT" && flow) return unclosedBracket(flow[1] === "map" ? "{" : "[", start, end, text);
  const quote = /^Missing closing (["'])quote/.exec(error.message);
  if (error.code === "MISSING_CHAR" && quote) return unclosedQuote(quote[1]!, start, end, text);
  switch (error.code) {
    case "DUPLICATE_KEY": {
      const key = /^[^:\n]*/.exec(text.slice(start))![0].trim();
      return { start, end, hint: `${key ? `'${key}'` : "This key"} is written twice in this mapping: remove or rename one of them.` };
    }
    case "BLOCK_AS_IMPLICIT_KEY": {
      const line = lineAt(text, start);
      if (error.message.startsWith("A block sequence may not be used as an implicit map key")) {
        // A stray or misaligned `- item`: reported at the space before its dash.
        const at = line.start + (line.text.length - line.text.trimStart().length);
        return { start: at, end: at + 1, hint: "This '- ' item is not in line with a list: write a list's items under their key, each '- ' at the same indentation, or remove the stray '- '." };
      }
      const key = keyOf(line.text);
      // The value as written on the line, without a trailing comment (` # …`).
      const value = line.text.slice(line.text.indexOf(":") + 1).replace(/\s+#.*$/, "").trim();
      if (key && value.includes(": ")) return { start, end, hint: `A value that holds ": " must be quoted: ${key}: ${JSON.stringify(value)}.` };
      // No ": " in the value: the key below is indented under one that already has a value.
      if (key && value) {
        return {
          start,
          end,
          hint: `'${key}' has a value on its own line (${key}: ${value}), so the keys below it cannot be indented under it: line them up with '${key}', or remove the value to give '${key}' those keys.`,
        };
      }
      return { start, end, hint: 'A value that holds ": " must be quoted.' };
    }
    case "BAD_INDENT": {
      // Reported at the start of the line (or of a blank line above it): the key that is out of
      // line is where the caret goes.
      const line = contentLineFrom(text, start);
      const at = line.start + (line.text.length - line.text.trimStart().length);
      const stray = strayItemAbove(text, line.start, at - line.start);
      if (stray) return stray;
      return { start: at, end: at + 1, hint: "Line up the keys of one mapping in the same column (the same number of spaces before each), two spaces deeper than the key they belong to." };
    }
    default:
      return { start, end, hint: HINTS[error.code] };
  }
}

/**
 * A single `- item` just above the key at `lineStart` (indented `indent`), at the same
 * indentation: the parser took the block for a list at that item and then blamed the correctly
 * placed key below it (helper-75 C7). The item is the mistake, so it is where the error points.
 * A run of several items is left to the parser's words: there the key may as well be the stray.
 */
function strayItemAbove(text: string, lineStart: number, indent: number): YamlErrorWords | undefined {
  const items: { readonly start: number; readonly text: string }[] = [];
  for (let next = lineStart; next > 0; ) {
    // The line that ends just before `next` (the line feed at `next - 1`).
    const line = lineAt(text, next - 1);
    next = line.start;
    const content = line.text.trimStart();
    const depth = line.text.length - content.length;
    if (content === "" || content.startsWith("#") || depth > indent) continue;
    if (depth < indent || !/^-(\s|$)/.test(content)) break;
    items.push(line);
  }
  if (items.length !== 1) return undefined;
  const item = items[0]!;
  const written = item.text.trim().replace(/\s+#.*$/, "");
  const start = item.start + indent;
  const name = written.slice(1).trim();
  const key = keyOf(lineAt(text, lineStart).text);
  const hint =
    name !== "" && name === key
      ? `Remove the stray '${written}' line: a block is either a list of '- ' items or a mapping of keys, and '${key}' is a key of this one already, on the line below.`
      : `A block is either a list of '- ' items or a mapping of keys, not both: remove the stray '- ', or write the item as a key with its value${/^[A-Za-z0-9_-]+$/.test(name) ? ` (${name}: {})` : ""}.`;
  return { start, end: start + written.length, hint, message: `'${written}' is a list item among the keys of a mapping` };
}

/** An unclosed `{` or `[`, which the parser reports where the front matter ends: pointed at the bracket left open. */
function unclosedBracket(open: "{" | "[", start: number, end: number, text: string): YamlErrorWords {
  const openers = scanFlow(text, start).openers;
  const found = openers.filter((opener) => opener.char === open).at(-1)?.offset;
  const at = found ?? text.lastIndexOf(open, start);
  const key = at >= 0 ? keyOf(lineAt(text, at).text) : undefined;
  const hint =
    open === "{"
      ? `The '{' here is never closed: close it with '}' on the same line, write {} for an empty entry${key ? ` (${key}: {})` : ""}, or drop the braces and put its fields on the lines below, indented.`
      : "The '[' here is never closed: close the list with ']' on the same line, or drop the brackets and write each item on a line of its own below, after '- '.";
  return at >= 0 ? { start: at, end: at + 1, hint } : { start, end, hint };
}

/** An unclosed quote, which the parser reports where the front matter ends: pointed at the quote that opens it. */
function unclosedQuote(quote: string, start: number, end: number, text: string): YamlErrorWords {
  const open = scanFlow(text, start).quote;
  const at = open?.char === quote ? open.offset : text.lastIndexOf(quote, start - 1);
  const key = at >= 0 ? keyOf(lineAt(text, at).text) : undefined;
  const example = key ?? "description";
  const hint = `Close the quote on the same line (${example}: ${quote}…${quote}), or write a text of several lines as a block: ${example}: | and the text on the lines below, indented.`;
  return at >= 0 ? { start: at, end: at + 1, hint } : { start, end, hint };
}

/** A bracket or quote of the text and where it is. */
interface Mark {
  readonly char: string;
  readonly offset: number;
}

/**
 * The brackets still open at `upTo` in `text`, outermost first, and the quote still open there,
 * if any: a scan that skips comments (`#` at a line's start or after white space) and the
 * contents of quoted scalars (with their escapes: `\"` in double quotes, `''` in single ones),
 * and takes a quote as opening one only where a scalar can start (after `:`, `-`, `,`, `[`, `{`,
 * `?` or at a line's start), so an apostrophe inside plain text (`it's`) opens nothing.
 */
function scanFlow(text: string, upTo: number): { readonly openers: readonly Mark[]; readonly quote: Mark | undefined } {
  const openers: Mark[] = [];
  let quote: Mark | undefined;
  let lastSignificant = "\n";
  for (let i = 0; i < upTo && i < text.length; i++) {
    const char = text[i]!;
    if (quote) {
      if (quote.char === '"' && char === "\\") i++;
      else if (quote.char === "'" && char === "'" && text[i + 1] === "'") i++;
      else if (char === quote.char) {
        quote = undefined;
        lastSignificant = char;
      }
      continue;
    }
    if (char === "#" && (i === 0 || /\s/.test(text[i - 1]!))) {
      const next = text.indexOf("\n", i);
      if (next === -1) break;
      i = next - 1;
      continue;
    }
    if ((char === '"' || char === "'") && /[\n:\-,[{?]/.test(lastSignificant)) {
      quote = { char, offset: i };
      continue;
    }
    if (char === "{" || char === "[") openers.push({ char, offset: i });
    else if ((char === "}" || char === "]") && openers.at(-1)?.char === (char === "}" ? "{" : "[")) openers.pop();
    if (char === "\n" || !/\s/.test(char)) lastSignificant = char;
  }
  return { openers, quote };
}

/** The line of `text` that holds `offset`: where it starts, and its text without the line end. */
function lineAt(text: string, offset: number): { readonly start: number; readonly text: string } {
  const start = text.lastIndexOf("\n", offset - 1) + 1;
  const next = text.indexOf("\n", offset);
  return { start, text: text.slice(start, next === -1 ? text.length : next).replace(/\r$/, "") };
}

/** The first line at or after the one that holds `offset` that is neither blank nor only a comment (that line, if none is). */
function contentLineFrom(text: string, offset: number): { readonly start: number; readonly text: string } {
  const first = lineAt(text, offset);
  for (let line = first; ; ) {
    const content = line.text.trim();
    if (content !== "" && !content.startsWith("#")) return line;
    const next = text.indexOf("\n", line.start);
    if (next === -1) return first;
    line = lineAt(text, next + 1);
  }
}

/** The plain key a line starts with (`  index: 'abc` → `index`), when it has one. */
function keyOf(line: string): string | undefined {
  return /^\s*(?:-\s+)?([A-Za-z0-9_.$@-][^:#"'{}[\]]*?)\s*:(?:\s|$)/.exec(line)?.[1];
}
