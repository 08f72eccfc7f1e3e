/** Diagnostics of descriptor validation. */
import { defineMessages } from "./types.js";

export const ValidationMessages = defineMessages({
});
