/**
 * Plain words for the YAML parser's errors in agent.md front matter (AL1006; new-user trial
 * helper-67: "Flow map in block collection must be sufficiently indented and end with a }", with
 * the caret on the closing `---`). The parser's message stays in AL1006's text; this module adds
 * the hint, by the `yaml` package's error code (its documented `YAMLError.code`), and moves the
 * position of an unclosed `{` or `[` to the bracket itself. The one place these words live.
 */
import type { YAMLError } from "yaml";

/** Hints by `YAMLError.code` (the codes agent.md authors meet; others get none). */
const HINTS: Readonly<Record<string, string>> = {
  TAB_AS_INDENT: "Indent with spaces: YAML does not allow tabs for indentation.",
  DUPLICATE_KEY: "A key may appear once in a mapping: remove or rename one of them.",
  BLOCK_AS_IMPLICIT_KEY: 'A value that holds ": " must be quoted, e.g. description: "Answers: briefly".',
  MULTILINE_IMPLICIT_KEY: "Write each key with a colon and a space before its value (name: value), or quote a text that runs over several lines.",
  MISSING_CHAR: "Close the quote on the same line, or write text over several lines as a block: description: | and the text indented on the lines below.",
  BAD_INDENT: "Line up the keys of one mapping in the same column (the same number of spaces before each), two spaces deeper than the key they belong to.",
};

/** The hint of an unclosed flow collection (`{` or `[`), which the parser reports as BAD_INDENT. */
const UNCLOSED_HINT = (open: string, close: string): string =>
  `The '${open}' here is never closed: write ${open}${close} for an empty entry (hello: ${open}${close}), or drop the brackets and put its fields on the lines below, indented.`;

/** Where an AL1006 points and what its hint says. */
export interface YamlErrorWords {
  /** Offsets in the parsed text: the parser's, or the unclosed bracket's. */
  readonly start: number;
  readonly end: number;
  readonly hint: string | undefined;
}

/**
 * The position and hint for `error`, one of the parser's errors on `text` (the text it parsed,
 * from the file's first byte). An unclosed `{` or `[` (reported at the end of the front matter)
 * is pointed at: the last such bracket before the parser's position.
 */
export function yamlErrorWords(error: YAMLError, text: string): YamlErrorWords {
  const [start, end] = error.pos;
  const flow = /^Flow (map|sequence) in block collection/.exec(error.message);
  if (error.code === "BAD_INDENT" && flow) {
    const [open, close] = flow[1] === "map" ? ["{", "}"] : ["[", "]"];
    const at = text.lastIndexOf(open!, start);
    return at >= 0 ? { start: at, end: at + 1, hint: UNCLOSED_HINT(open!, close!) } : { start, end, hint: UNCLOSED_HINT(open!, close!) };
  }
  return { start, end, hint: HINTS[error.code] };
}
