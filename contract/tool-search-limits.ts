/**
 * The paging limits of `tool_search` (seed, "Tool search": "default 8, max 20"). The runtime's
 * search applies them and the core catalogue's `tool_search` input schema describes them, so
 * both read them from here.
 */

/** Page size when the model gives no `limit`. */
export const DEFAULT_SEARCH_LIMIT = 8;

/** The largest page `tool_search` returns; a larger `limit` is clamped to it. */
export const MAX_SEARCH_LIMIT = 20;
