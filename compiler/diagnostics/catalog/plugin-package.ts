/** Diagnostics of the Agent Plugins v1 package loader. */
import { defineMessages } from "./types.js";

export const PluginPackageMessages = defineMessages({
});
