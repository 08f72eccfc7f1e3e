/**
 * `tool_search` ranking and paging over a surface's catalogue (seed "Execution Model").
 */
export {
  DEFAULT_SEARCH_LIMIT,
  MAX_SEARCH_LIMIT,
  createToolSearchIndex,
  type SearchableTool,
  type ToolSearchIndex,
  type ToolSearchOptions,
  type ToolSearchPage,
} from "./tool-search-index.js";
export { STOP_WORDS, normalizeTerm, splitWords, stemWord, tokenize } from "./tokenize.js";
