/**
 * Canonical JSON text: object keys sorted by code unit, no whitespace. Two values with the same
 * content give the same text whatever their key order (used to compare locked contracts and to
 * recognise a retried call's input).
 */

/** Canonical JSON text of a JSON value (`undefined` members are skipped, as JSON does). */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? "null" : canonicalJson(item))).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
