/**
 * The provider profiles by id (issue 11 item 1). `compile --target ID` and the config's
 * `targets` name them; docs/providers.md lists every rule of each, with its source and date.
 */
import { anthropicProfile } from "./anthropic.js";
import { anthropicStrictProfile } from "./anthropic-strict.js";
import { geminiProfile } from "./gemini.js";
import { geminiJsonSchemaProfile } from "./gemini-json-schema.js";
import { mcpProfile } from "./mcp-2025-11-25.js";
import { openaiProfile } from "./openai.js";
import { openaiStrictProfile } from "./openai-strict.js";
import type { ProviderProfile, TargetId } from "./profile.js";

export { TARGET_IDS, isTargetId, type ProviderProfile, type TargetId } from "./profile.js";

/** Every profile, in {@link TARGET_IDS} order. */
export const PROVIDER_PROFILES: readonly ProviderProfile[] = [openaiProfile, openaiStrictProfile, anthropicProfile, anthropicStrictProfile, geminiProfile, geminiJsonSchemaProfile, mcpProfile];


/** The profile of a target id. */
export function profileOf(id: TargetId): ProviderProfile {
  return PROVIDER_PROFILES.find((profile) => profile.id === id)!;
}
