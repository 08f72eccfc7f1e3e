/**
 * "Did you mean …?" suggestions for misspelled names (STYLE §5), by edit distance
 * (fastest-levenshtein), case-insensitively.
 */
import { distance } from "fastest-levenshtein";

/**
 * The candidate closest to `input`, when it is close enough to be a likely typo: at most
 * one edit for names up to 4 characters, two up to 8, else a third of the length.
 * Ties keep the earlier candidate. Returns `undefined` when nothing is close.
 */
export function didYouMean(input: string, candidates: Iterable<string>): string | undefined {
  const lowered = input.toLowerCase();
  const limit = input.length <= 4 ? 1 : input.length <= 8 ? 2 : Math.ceil(input.length / 3);
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    if (candidate === input) return undefined;
    const d = distance(lowered, candidate.toLowerCase());
    if (d < bestDistance && d <= limit) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}
