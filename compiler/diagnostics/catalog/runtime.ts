/** Diagnostics of runtime-min. */
import { defineMessages } from "./types.js";

export const RuntimeMessages = defineMessages({
});
