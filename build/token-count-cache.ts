/**
 * Token counts without loading the encoder on every run (issue 14 item 3 for `assembly-line
 * tools`, issue 11's "under 10% of a warm compile" for `compile --token-budget`). The o200k_base
 * tables of `gpt-tokenizer` take about a quarter of a second of CPU to load, more than the rest
 * of `tools` and as much as the rest of a warm compile's checks; the counts of an agent's tools
 * only change when the tool JSON does. So the counts are kept in a file under
 * `<root>/.assemblyline/cache/` (one per consumer: {@link TOOL_TOKENS_CACHE_FILE} for `tools`,
 * {@link BUDGET_TOKENS_CACHE_FILE} for the compile's token budget), keyed by a SHA-256 of the
 * exact text counted (the tool as OpenAI receives it, `compiler/providers/tokens.ts`) and the
 * encoding's name; a text not in the file is counted with the encoder, loaded then, and the file
 * is rewritten with exactly the texts this run counted (it never grows with history). One file
 * per consumer, so that `tools` and `compile`, which may count different tools, do not evict
 * each other's counts.
 *
 * Correctness: a count is reused only for the same text under the same encoding, and o200k_base
 * is a fixed table (a new `gpt-tokenizer` release does not change what it counts). A missing,
 * unreadable or foreign file is ignored; a file that cannot be written (read-only root, a link
 * out of the root) is not an error: the next run counts again.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { writeFileConfined } from "../common/confined-write.js";
import { ignoreStateDir } from "../common/state-dir.js";
import { loadTokenCounter, TOKEN_ENCODING, type TokenCounter } from "../compiler/providers/tokens.js";

/** Where `assembly-line tools` keeps its counts, relative to the agent root. */
export const TOOL_TOKENS_CACHE_FILE = path.join(".assemblyline", "cache", "tool-tokens.json");

/** Where the compile keeps the counts of its `tokenBudget` check, relative to the agent root. */
export const BUDGET_TOKENS_CACHE_FILE = path.join(".assemblyline", "cache", "budget-tokens.json");

/** Which file, and whether to read and write it. */
export interface TokenCountCacheOptions {
  /** The file relative to the root. Default {@link TOOL_TOKENS_CACHE_FILE}. */
  readonly file?: string;
  /** `false` (`compile --no-cache`): every count comes from the encoder. Default `true`. */
  readonly read?: boolean;
  /** `false` (`compile --check`, a folder that is not an agent): the file is not written. Default `true`. */
  readonly save?: boolean;
}

/** The file's content. */
interface TokenCountFile {
  readonly encoding: string;
  /** base64url SHA-256 of the counted text → its token count. */
  readonly counts: Readonly<Record<string, number>>;
}

/**
 * Runs `render` (a pure function that counts tokens with the counter it is given) with counts
 * from the cache of the agent at `root`; when a text is not cached, loads the encoder and runs
 * `render` again with real counts. Saves the counts used when they differ from the file's.
 * @param root absolute agent root.
 * @param options the consumer's file, and whether to read and write it.
 * @returns what `render` returned with every count exact.
 */
export async function withCachedTokenCounts<T>(root: string, render: (count: TokenCounter) => T, options: TokenCountCacheOptions = {}): Promise<T> {
  const file = path.join(root, options.file ?? TOOL_TOKENS_CACHE_FILE);
  const stored = options.read === false ? new Map<string, number>() : readCounts(file);
  const used = new Map<string, number>();
  let missing = false;
  const fromCache: TokenCounter = (text) => {
    const key = textKey(text);
    const known = stored.get(key);
    if (known === undefined) {
      missing = true;
      return 0;
    }
    used.set(key, known);
    return known;
  };
  let result = render(fromCache);
  if (missing) {
    const encode = await loadTokenCounter();
    used.clear();
    result = render((text) => {
      const count = encode(text);
      used.set(textKey(text), count);
      return count;
    });
  }
  if (options.save !== false && (missing || used.size !== stored.size)) saveCounts(root, file, used);
  return result;
}

function textKey(text: string): string {
  return createHash("sha256").update(text).digest("base64url");
}

function readCounts(file: string): Map<string, number> {
  try {
    const parsed = JSON.parse(fs.readFileSync(file, "utf8")) as Partial<TokenCountFile>;
    if (parsed.encoding !== TOKEN_ENCODING || typeof parsed.counts !== "object" || parsed.counts === null) return new Map();
    return new Map(Object.entries(parsed.counts).filter((entry): entry is [string, number] => Number.isSafeInteger(entry[1]) && entry[1] >= 0));
  } catch {
    return new Map();
  }
}

function saveCounts(root: string, file: string, counts: ReadonlyMap<string, number>): void {
  const content: TokenCountFile = { encoding: TOKEN_ENCODING, counts: Object.fromEntries([...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) };
  try {
    if (writeFileConfined(root, file, `${JSON.stringify(content)}\n`, { createFolders: true }) === undefined) ignoreStateDir(root);
  } catch {
    // Only a cache: the next run counts again.
  }
}
