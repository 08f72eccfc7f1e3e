/** Diagnostics of plugins.lock. */
import { defineMessages } from "./types.js";

export const LockfileMessages = defineMessages({
});
