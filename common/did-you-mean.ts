/**
 * "Did you mean …?" suggestions for misspelled names (STYLE §5), by edit distance
 * (fastest-levenshtein), case-insensitively. Shared by every stage.
 */
import { distance } from "fastest-levenshtein";

/**
 * The candidate closest to `input` when it is a likely typo: at most one edit for names up to
 * 4 characters, two up to 8, else a third of the length, where two neighbouring letters swapped
 * count as one edit (`nmae` → `name`: new-user trial E7); ties keep the earlier candidate.
 * `aliases` maps known wrong words to the right one (`repo` → `repository`); `maxEdits` lowers
 * the limit where a wrong guess costs more (a warning about a value that may be meant).
 * Returns `undefined` when nothing is close or `input` is itself a candidate.
 */
export function didYouMean(input: string, candidates: Iterable<string>, aliases: Readonly<Record<string, string>> = {}, maxEdits = Infinity): string | undefined {
  const list = [...candidates];
  if (list.includes(input)) return undefined;
  const lowered = input.toLowerCase();
  if (Object.hasOwn(aliases, lowered)) return aliases[lowered];
  const limit = Math.min(maxEdits, lowered.length <= 4 ? 1 : lowered.length <= 8 ? 2 : Math.ceil(lowered.length / 3));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of list) {
    const d = editDistance(lowered, candidate.toLowerCase());
    if (d <= limit && d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/** `Did you mean 'x'?` when {@link didYouMean} has a suggestion, else `undefined`. */
export function didYouMeanHint(input: string, candidates: Iterable<string>, aliases?: Readonly<Record<string, string>>): string | undefined {
  const suggestion = didYouMean(input, candidates, aliases);
  return suggestion === undefined ? undefined : `Did you mean '${suggestion}'?`;
}

/**
 * The Levenshtein distance of `a` and `b`, except that two strings that differ only by one swap
 * of neighbouring characters are 1 apart (the commonest typo, which Levenshtein counts as 2).
 */
function editDistance(a: string, b: string): number {
  const d = distance(a, b);
  return d === 2 && isOneSwap(a, b) ? 1 : d;
}

/** Whether `b` is `a` with exactly one pair of neighbouring characters swapped. */
function isOneSwap(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return i + 1 < a.length && a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
}
