/**
 * The tokeniser `tool_search` uses for tool names, descriptions, tags, aliases, namespaces and
 * queries alike (seed "Execution Model": "tool_search tokenizes and ranks descriptive queries").
 *
 * `splitWords` splits on anything that is not a letter or digit (so snake_case, kebab-case,
 * dots, slashes and other punctuation separate words), then splits camelCase and PascalCase
 * inside a word (`getHTTPStatus` → `get`, `http`, `status`; `s3Upload` → `s3`, `upload`;
 * `listURLs` → `list`, `urls`), and lower-cases every word.
 *
 * `normalizeTerm` then drops a short list of English stop words and applies a light plural
 * stemmer, the same way at index and query time, so `files` finds `file` and `queries` finds
 * `query`.
 */

const WORD = /[\p{L}\p{N}]+/gu;
/** lower/digit followed by upper: `getStatus` → `get Status`, `s3Upload` → `s3 Upload`. */
const LOWER_UPPER = /([\p{Ll}\p{N}])(\p{Lu})/gu;
/** An acronym followed by a capitalised word: `HTTPServer` → `HTTP Server` (not `URLs` → `UR Ls`). */
const ACRONYM_WORD = /(\p{Lu}+)(\p{Lu}\p{Ll}{2,})/gu;

/**
 * Splits `text` into lower-case words (see the module comment for the rules).
 *
 * @example splitWords("read_file-v2 getHTTPStatus") // ["read", "file", "v2", "get", "http", "status"]
 */
export function splitWords(text: string): string[] {
  const words: string[] = [];
  for (const match of text.matchAll(WORD)) {
    const word = match[0];
    const lower = word.toLowerCase();
    if (lower === word) {
      words.push(word); // no capitals, so no camelCase boundary: the common case, kept fast
      continue;
    }
    const spaced = word.replace(LOWER_UPPER, "$1 $2").replace(ACRONYM_WORD, "$1 $2");
    for (const part of spaced.split(" ")) if (part !== "") words.push(part.toLowerCase());
  }
  return words;
}

/** Words too common to rank on; they are dropped from the index and from queries. */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "into", "is", "it", "its",
  "of", "on", "or", "that", "the", "this", "to", "with",
]);

/**
 * Light plural stemmer: `ies` → `y` (`queries` → `query`), a trailing `s` is dropped unless
 * the word is short or ends in `ss`, `us` or `is` (`files` → `file`; `status`, `class`,
 * `analysis` unchanged). Words containing digits are left alone.
 */
export function stemWord(word: string): string {
  if (word.length <= 3 || /\d/.test(word)) return word;
  if (word.endsWith("ies") && word.length > 4) return `${word.slice(0, -3)}y`;
  if (word.endsWith("s") && !/(ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

/** Maps one word from `splitWords` to its index term, or `null` for a stop word. */
export function normalizeTerm(word: string): string | null {
  if (STOP_WORDS.has(word)) return null;
  return stemWord(word);
}

/** `splitWords` then `normalizeTerm`: the terms `text` is indexed or searched under. */
export function tokenize(text: string): string[] {
  const terms: string[] = [];
  for (const word of splitWords(text)) {
    const term = normalizeTerm(word);
    if (term !== null) terms.push(term);
  }
  return terms;
}
