/** Diagnostics of config merge and credential checks. */
import { defineMessages } from "./types.js";

export const ConfigMessages = defineMessages({
  ConfigValueLooksLikeCredential: {
    code: "AL5001",
    severity: "error",
    message: "This config value looks like {0}.",
    hint: "Remove it (and rotate it if it was ever committed): credentials never go in agent.md or plugin config. A connection is a reviewed integration owned by the host: it holds the credential and makes the authenticated call in the host process, so agent files, plugin config, plugins.lock and tool code never see the secret. See 'Credentials and connections' in the README (docs/connections.md).",
    docs: "No credential may pass through config: values shaped like API keys or tokens are refused (DESIGN §4).",
    sensitive: true,
  },
  ConfigInvalid: {
    code: "AL5002",
    severity: "error",
    message: "Config of capability '{0}': {1}.",
    docs: "capabilities.<name>.config is validated against the plugin's configSchema (DESIGN §4). A value close to one of an enum's strings gets it as the hint (\"Did you mean 'docs'?\"), which the editor's quick fix applies. A value the configSchema's `default` filled in (the agent did not write it) is reported at the capability's `config` as the plugin's value, since the tools would receive it and setting the option overrides it; the default itself is AL4033 at the plugin.",
  },
  ConfigWithoutSchema: {
    code: "AL5003",
    severity: "error",
    message: "Capability '{0}' is given config, but its plugin declares no configSchema, so it accepts none.",
    hint: "Remove 'config:' from the capability, or add a configSchema to the plugin's ai.assemblyline entry.",
    docs: "Only options a plugin declares in its configSchema can be given by the agent (DESIGN §4); a tool's own descriptor `config` is the plugin author's and is not checked against it. Not reported when the entry writes configSchema misspelt (`configschema`): that one mistake is its AL4001, whose hint names the field.",
  },
  ConfigMissingRequired: {
    code: "AL5004",
    severity: "error",
    message: "Capability '{0}' is missing the required config '{1}'.",
    hint: "Add it under capabilities.{0}.config in agent.md.",
    docs: "configSchema's required properties must be given by the agent (DESIGN §4). Not reported for a required key written directly under the capability instead of under `config:`: that one mistake is its AL1010, whose hint says to move it.",
  },
  ConfigUnknownKey: {
    code: "AL5005",
    severity: "error",
    message: "Capability '{0}' has the config key '{1}', which its configSchema does not allow.",
    docs: "configSchema with additionalProperties: false refuses keys it does not declare.",
  },
  ConfigUndeclaredKey: {
    code: "AL5006",
    severity: "warning",
    message: "Capability '{0}' has the config key '{1}', which its configSchema does not declare.",
    docs: "A key the plugin's configSchema does not declare is most likely a typo the plugin never reads; schemas that refuse unknown keys (additionalProperties: false) make it an error (AL5005).",
  },
});
