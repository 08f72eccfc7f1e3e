/**
 * Names of the framework's core tools, as far as the compiler needs them: a plugin tool of
 * the same name collides unless it says `disabled: true`, and only these names can be disabled
 * (seed "Execution Model": the always-visible core set, deferred framework tools, and
 * "To remove a core default"). The catalog itself lives with the runtime that implements the
 * tools (`contract/core-catalog.ts`); this is the compiler's view of it.
 */
import { CORE_TOOL_NAMES as NAMES } from "../../contract/core-catalog.js";

/** Every core tool name (the always-visible set, `history_search` and the workspace tools). */
export const CORE_TOOL_NAMES: ReadonlySet<string> = new Set<string>(NAMES);
