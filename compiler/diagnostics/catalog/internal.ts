/** Diagnostics of usage and internal failures. */
import { defineMessages } from "./types.js";

export const InternalMessages = defineMessages({
});
