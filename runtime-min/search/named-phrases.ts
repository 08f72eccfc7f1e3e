/**
 * Tier 1 and 2 of `tool_search` ranking: which tools a query *names*. A query names a phrase
 * (a tool's name or alias: tier 2; a tag, its namespace or its plugin's name: tier 1) when every
 * term of the phrase occurs among the query's terms. A tag, namespace or plugin name earns
 * tier 1 only when the query says nothing beyond the tool's labels (every query term is a term
 * of its name, aliases, tags, namespace or plugin): `file` lists the tools tagged `file` first,
 * but in `publish a file to the team channel` the tag is one word of a description, and BM25
 * ranks the tool that publishes above the ten core tools tagged `file` (new-user trial 112, C1).
 *
 * Checking every matching tool's phrases per query is slow on large catalogues, so each
 * phrase is filed under its rarest term: a query only examines the phrases filed under one
 * of its own terms, and a phrase can only be named if that term is in the query.
 */
import { pluginOf, type SearchableTool } from "./searchable-tool.js";
import { tokenize } from "./tokenize.js";

/** Per-query tiers: document number (position in the indexed list) → tier (1 or 2). */
export type NamedTiers = ReadonlyMap<number, number>;

/** A built phrase index. */
export interface NamedPhraseIndex {
  /** The tools (by document number) that `queryTerms` names, with the highest tier each earns. */
  tiersFor(queryTerms: ReadonlySet<string>): NamedTiers;
}

interface Phrase {
  readonly doc: number;
  readonly terms: readonly string[];
  readonly tier: number;
}

/** Every term of a tool's labels: its name, aliases, tags, namespace and plugin. */
function labelTermsOf(phrases: readonly Phrase[]): Set<string> {
  return new Set(phrases.flatMap((phrase) => phrase.terms));
}

function phrasesOf(tool: SearchableTool, doc: number): Phrase[] {
  const phrases: Phrase[] = [];
  const add = (text: string, tier: number): void => {
    const terms = [...new Set(tokenize(text))];
    if (terms.length > 0) phrases.push({ doc, terms, tier });
  };
  add(tool.name, 2);
  for (const alias of tool.aliases ?? []) add(alias, 2);
  for (const tag of tool.tags ?? []) add(tag, 1);
  if (tool.namespace !== undefined) add(tool.namespace, 1);
  const plugin = pluginOf(tool);
  if (plugin !== undefined) add(plugin, 1);
  return phrases;
}

function rarestTerm(terms: readonly string[], frequency: ReadonlyMap<string, number>): string {
  let best = terms[0] as string;
  for (const term of terms) if ((frequency.get(term) ?? 0) < (frequency.get(best) ?? 0)) best = term;
  return best;
}

/** Builds the phrase index over `tools` (document number = position in `tools`). */
export function createNamedPhraseIndex(tools: readonly SearchableTool[]): NamedPhraseIndex {
  const phrasesByDoc = tools.map(phrasesOf);
  const labels = phrasesByDoc.map(labelTermsOf);
  const phrases = phrasesByDoc.flat();
  const frequency = new Map<string, number>();
  for (const phrase of phrases) for (const term of phrase.terms) frequency.set(term, (frequency.get(term) ?? 0) + 1);
  const byKey = new Map<string, Phrase[]>();
  for (const phrase of phrases) {
    const key = rarestTerm(phrase.terms, frequency);
    const list = byKey.get(key);
    if (list) list.push(phrase);
    else byKey.set(key, [phrase]);
  }
  return {
    tiersFor(queryTerms) {
      const tiers = new Map<number, number>();
      for (const term of queryTerms) {
        for (const phrase of byKey.get(term) ?? []) {
          if (phrase.tier <= (tiers.get(phrase.doc) ?? 0)) continue;
          let named = true;
          for (const other of phrase.terms) {
            if (!queryTerms.has(other)) {
              named = false;
              break;
            }
          }
          if (named && phrase.tier === 1) {
            const own = labels[phrase.doc] as ReadonlySet<string>;
            for (const queried of queryTerms) {
              if (!own.has(queried)) {
                named = false;
                break;
              }
            }
          }
          if (named) tiers.set(phrase.doc, phrase.tier);
        }
      }
      return tiers;
    },
  };
}
