/** Diagnostics of agent loading (agent.md front matter, surfaces, capability resolution). */
import { defineMessages } from "./types.js";

export const AgentMessages = defineMessages({
});
