/** Diagnostics of config merge and credential checks. */
import { defineMessages } from "./types.js";

export const ConfigMessages = defineMessages({
});
