/**
 * The `tool_search` index (seed "Execution Model": "tool_search tokenizes and ranks
 * descriptive queries across tool names, descriptions, tags, aliases, and namespaces. Pass
 * query: "" to browse the complete catalog. Results are paged with a default limit of 8 and a
 * maximum of 20; while hasMore is true, pass the returned nextOffset as offset in the next
 * call. The response reports totalMatches").
 *
 * Ranking, in order:
 * 1. Tier. A tool whose name or one of whose aliases the query names (every term of it occurs
 *    in the query) is tier 2; one whose tag or namespace, or whose plugin (the capability key
 *    of a `plugin:<key>` source, `pluginOf`), the query names, and whose labels cover every
 *    other term of the query, is tier 1 (`named-phrases.ts`); others 0. So a query naming an
 *    alias, or made of a tag, lists those tools first, whatever their descriptions say, and
 *    `weather` lists the plugin `weather`'s tools after a tool named `weather`; a tag that is
 *    one word of a longer description is ranked by BM25 like any other word.
 * 2. BM25+ score (minisearch) over the fields, boosted name 3, aliases 3, tags 2.5,
 *    namespace 2, plugin 1.5, description 1; terms of three or more characters also match as prefixes
 *    (`deliv` → `deliver`), and a term of five or more characters that is not in the index
 *    also matches within edit distance 1 (typos: `biling` → `billing`); both at a lower
 *    weight than an exact term. Query terms are OR-combined.
 * 3. Name, in code-unit order, so equal scores come back in a stable order.
 *
 * `""` (or only whitespace) browses every indexed tool sorted by name. Hidden tools are never
 * indexed, so no query can find them. A query made only of stop words or punctuation matches
 * nothing.
 */
import MiniSearch from "minisearch";
import { createNamedPhraseIndex } from "./named-phrases.js";
import { pluginOf, type SearchableTool } from "./searchable-tool.js";

export type { SearchableTool };
import { normalizeTerm, splitWords, tokenize } from "./tokenize.js";
import { byCodeUnits } from "../../common/compare.js";
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT } from "../../contract/tool-search-limits.js";

export { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT };


/** Paging of one search call. */
export interface ToolSearchOptions {
  /** Page size; default 8, clamped to [1, 20] (a non-integer is rounded down). */
  readonly limit?: number;
  /** Number of ranked matches to skip; a non-negative integer, default 0. */
  readonly offset?: number;
}

/** One page of results. `nextOffset` is present exactly when `hasMore` is true. */
export interface ToolSearchPage<T> {
  readonly tools: readonly T[];
  readonly totalMatches: number;
  readonly hasMore: boolean;
  readonly nextOffset?: number;
}

/** A built index over one catalogue. */
export interface ToolSearchIndex<T> {
  /** Number of indexed (non-hidden) tools. */
  readonly size: number;
  /**
   * Ranks the catalogue against `query` and returns one page.
   * @throws RangeError when `offset` is not a non-negative integer or `limit` is not a number.
   */
  search(query: string, options?: ToolSearchOptions): ToolSearchPage<T>;
}


const FIELD_BOOSTS = { name: 3, aliases: 3, tags: 2.5, namespace: 2, plugin: 1.5, description: 1 } as const;
const FIELDS = Object.keys(FIELD_BOOSTS);

interface IndexedDoc {
  readonly id: number;
  readonly name: string;
  readonly description: string;
  readonly aliases: string;
  readonly tags: string;
  readonly namespace: string;
  readonly plugin: string;
}


/** One ranked candidate: document number, tier, BM25 score. */
interface Hit {
  readonly doc: number;
  readonly tier: number;
  readonly score: number;
}

/**
 * The first `k` hits in ranking order (tier, then score, then name rank), without sorting all
 * of them: a sorted buffer of at most `k` entries, O(hits × log k) comparisons plus small
 * splices (a full sort for deep pages, k > 256). `nameRank[doc]` is the document's position in name order, so the order is total.
 */
function selectTop(hits: readonly Hit[], k: number, nameRank: Int32Array): Hit[] {
  const before = (a: Hit, b: Hit): boolean =>
    a.tier !== b.tier ? a.tier > b.tier : a.score !== b.score ? a.score > b.score : (nameRank[a.doc] as number) < (nameRank[b.doc] as number);
  // Deep pages: a full sort is cheaper than a large buffer.
  if (k > 256) return [...hits].sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0)).slice(0, k);
  const top: Hit[] = [];
  for (const hit of hits) {
    if (top.length === k && !before(hit, top[k - 1] as Hit)) continue;
    let low = 0;
    let high = top.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (before(top[mid] as Hit, hit)) low = mid + 1;
      else high = mid;
    }
    top.splice(low, 0, hit);
    if (top.length > k) top.pop();
  }
  return top;
}

function pageBounds(options: ToolSearchOptions | undefined): { limit: number; offset: number } {
  const rawLimit = options?.limit ?? DEFAULT_SEARCH_LIMIT;
  if (typeof rawLimit !== "number" || Number.isNaN(rawLimit)) throw new RangeError(`limit must be a number, got ${String(rawLimit)}.`);
  const limit = Math.min(MAX_SEARCH_LIMIT, Math.max(1, Math.floor(rawLimit)));
  const offset = options?.offset ?? 0;
  if (!Number.isSafeInteger(offset) || offset < 0) {
    throw new RangeError(`offset must be a non-negative integer (the nextOffset of the previous page), got ${String(offset)}.`);
  }
  return { limit, offset };
}

/**
 * The minisearch (BM25+) index over `tools`, document id = position in `tools`. Fuzzy
 * matching only runs for query terms that are not in the index's vocabulary (typos), so a
 * well-spelled query never pays for edit-distance expansion.
 */
function createBm25Index(tools: readonly SearchableTool[]): MiniSearch<IndexedDoc> {
  const vocabulary = new Set<string>();
  const mini = new MiniSearch<IndexedDoc>({
    fields: FIELDS,
    idField: "id",
    tokenize: (text) => splitWords(text),
    processTerm: (word, fieldName) => {
      const term = normalizeTerm(word);
      if (term !== null && fieldName !== undefined) vocabulary.add(term);
      return term;
    },
    searchOptions: {
      boost: { ...FIELD_BOOSTS },
      prefix: (term) => term.length >= 3,
      fuzzy: (term) => (term.length >= 5 && !vocabulary.has(term) ? 1 : false),
      combineWith: "OR",
    },
  });
  mini.addAll(
    tools.map((tool, id) => ({
      id,
      name: tool.name,
      description: tool.description,
      aliases: (tool.aliases ?? []).join(" \n "),
      tags: (tool.tags ?? []).join(" \n "),
      namespace: tool.namespace ?? "",
      plugin: pluginOf(tool) ?? "",
    })),
  );
  return mini;
}

/**
 * Builds the search index over `tools` (hidden ones are skipped).
 *
 * @param tools the catalogue, e.g. `buildSnapshot(...).catalog`; result pages return these
 *   same objects.
 * @throws Error when two non-hidden tools share a name.
 */
export function createToolSearchIndex<T extends SearchableTool>(tools: readonly T[]): ToolSearchIndex<T> {
  const indexed = tools.filter((tool) => tool.visibility !== "hidden");
  const seen = new Set<string>();
  for (const tool of indexed) {
    if (seen.has(tool.name)) throw new Error(`Tool "${tool.name}" appears twice in the search catalogue; tool names are unique per surface.`);
    seen.add(tool.name);
  }
  const browseOrder = [...indexed].sort((a, b) => byCodeUnits(a.name, b.name));
  const nameRank = new Int32Array(indexed.length);
  const docOf = new Map(indexed.map((tool, doc) => [tool, doc]));
  browseOrder.forEach((tool, rank) => {
    nameRank[docOf.get(tool) as number] = rank;
  });
  const named = createNamedPhraseIndex(indexed);
  const mini = createBm25Index(indexed);

  /** Total matches of `query` and its ranked tools from position `offset`, at most `limit`. */
  function rank(query: string, offset: number, limit: number): { total: number; page: T[] } {
    if (query.trim() === "") return { total: browseOrder.length, page: browseOrder.slice(offset, offset + limit) };
    const queryTerms = new Set(tokenize(query));
    if (queryTerms.size === 0) return { total: 0, page: [] };
    const tiers = named.tiersFor(queryTerms);
    const hits = mini.search(query).map((hit): Hit => ({ doc: hit.id as number, tier: tiers.get(hit.id as number) ?? 0, score: hit.score }));
    const top = selectTop(hits, offset + limit, nameRank);
    return { total: hits.length, page: top.slice(offset).map((hit) => indexed[hit.doc] as T) };
  }

  return {
    size: indexed.length,
    search(query, options) {
      const { limit, offset } = pageBounds(options);
      const { total, page } = rank(query, offset, limit);
      const end = offset + page.length;
      return end < total ? { tools: page, totalMatches: total, hasMore: true, nextOffset: end } : { tools: page, totalMatches: total, hasMore: false };
    },
  };
}
