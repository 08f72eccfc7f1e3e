/**
 * The one string order of the toolchain: plain UTF-16 code-unit comparison, never
 * `localeCompare`, so that sorted output (diagnostics, locks, snapshots, search results) does
 * not depend on the machine's `LANG` (STYLE §6, "Deterministic output").
 */

/**
 * Compares two strings by UTF-16 code units; a comparator for `Array.prototype.sort`.
 *
 * @example ["b", "B", "a"].sort(byCodeUnits) // ["B", "a", "b"]
 */
export function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
