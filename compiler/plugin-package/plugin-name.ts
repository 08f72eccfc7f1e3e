/**
 * The plugin name rules of Agent Plugins v1 §5.5, one reason per broken rule, and a corrected
 * name to suggest.
 *
 * | rule        | requirement                                    |
 * |-------------|------------------------------------------------|
 * | length      | 1-64 characters                                |
 * | charset     | `a-z`, `0-9`, `-`, `.` (ASCII only)             |
 * | boundaries  | first and last characters alphanumeric          |
 * | repetition  | no `--` and no `..`                             |
 *
 * These are exactly the official schema's `minLength`/`maxLength`/`pattern`, stated rule by
 * rule so the message can say which one failed.
 */
import { codePointLength, listCharacters } from "./json-kinds.js";

/** Longest plugin name allowed (Agent Plugins v1 §5.5). */
export const MAX_PLUGIN_NAME_LENGTH = 64;

const ALLOWED = /^[a-z0-9.-]$/;
const ALPHANUMERIC = /^[a-z0-9]$/;

/**
 * Every §5.5 rule `name` breaks, in words (`"it contains uppercase letters ('M', 'P')"`).
 * An empty array means the name is valid.
 */
export function pluginNameProblems(name: string): string[] {
  if (name === "") return ["it is empty"];
  const problems: string[] = [];
  const length = codePointLength(name);
  if (length > MAX_PLUGIN_NAME_LENGTH) problems.push(`it is ${length} characters long (at most ${MAX_PLUGIN_NAME_LENGTH})`);
  const characters = [...name];
  const uppercase = characters.filter((ch) => /^[A-Z]$/.test(ch));
  const other = characters.filter((ch) => !ALLOWED.test(ch) && !/^[A-Z]$/.test(ch));
  if (uppercase.length > 0) problems.push(`it contains uppercase letters (${listCharacters(uppercase)})`);
  if (other.length > 0) problems.push(`it contains characters other than a-z, 0-9, '-' and '.' (${listCharacters(other)})`);
  const first = characters[0]!;
  const last = characters[characters.length - 1]!;
  if (!ALPHANUMERIC.test(first) && ALLOWED.test(first)) problems.push(`it starts with '${first}' instead of a letter or digit`);
  if (!ALPHANUMERIC.test(last) && ALLOWED.test(last)) problems.push(`it ends with '${last}' instead of a letter or digit`);
  if (name.includes("--")) problems.push("it contains '--'");
  if (name.includes("..")) problems.push("it contains '..'");
  return problems;
}

/**
 * A valid name close to `name` (lowercased, accents removed, other characters turned into
 * `-`, repeats collapsed, ends trimmed, cut to 64), or `undefined` when nothing usable remains.
 *
 * @example suggestPluginName("My_Plugin") // "my-plugin"
 */
export function suggestPluginName(name: string): string | undefined {
  let candidate = name
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^a-z0-9.-]+/g, "-")
    .replace(/-{2,}/g, "-")
    .replace(/\.{2,}/g, ".")
    .replace(/^[.-]+|[.-]+$/g, "");
  if (candidate.length > MAX_PLUGIN_NAME_LENGTH) candidate = candidate.slice(0, MAX_PLUGIN_NAME_LENGTH).replace(/[.-]+$/, "");
  return candidate !== "" && candidate !== name && pluginNameProblems(candidate).length === 0 ? candidate : undefined;
}
