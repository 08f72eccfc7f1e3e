/** Diagnostics of packaging. */
import { defineMessages } from "./types.js";

export const PackagingMessages = defineMessages({
});
