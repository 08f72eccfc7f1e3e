/** Diagnostics of static analysis of ai.assemblyline entries and definition modules. */
import { defineMessages } from "./types.js";

export const StaticAnalysisMessages = defineMessages({
});
