/**
 * Checks one `mcpServers` member (Agent Plugins v1 §7.2.1): the `type` selects a closed
 * variant; the entry is validated against that variant of the official schema, then against the
 * rules only the text states (`./mcp-stdio.ts`, `./mcp-remote.ts`). Any error skips this server
 * alone (§7.2.2 item 3); warnings do not.
 */
import { createDiagnostic, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { formatPropertyPath } from "../../common/property-path.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { cloneJson, isJsonObject, type JsonValue } from "../../common/json-value.js";
import type { McpServerComponent } from "../model.js";
import { didYouMeanHint } from "../../common/did-you-mean.js";
import { describeKind } from "../../diagnostics/json-kinds.js";
import { schemaErrorHint, schemaErrorProperty, schemaErrorReason } from "../../diagnostics/schema-error-words.js";
import { valueAtSegments } from "./json-kinds.js";
import { hasError, keyOrValue, locateInServer, pathInServer, segmentsInServer, type ServerContext } from "./mcp-context.js";
import { escapePointerSegment } from "../../common/json-pointer.js";
import { checkRemoteServer } from "./mcp-remote.js";
import { checkStdioServer } from "./mcp-stdio.js";
import { validateMcpServerSchema, type McpServerVariant, type SchemaIssue } from "./official-schemas.js";

/** The server variants and their fields (Agent Plugins v1 §7.2.1). */
export const MCP_SERVER_FIELDS: Readonly<Record<McpServerVariant, readonly string[]>> = {
  stdio: ["type", "command", "args", "env", "cwd"],
  "streamable-http": ["type", "url", "headers"],
  sse: ["type", "url", "headers"],
};

const VARIANTS = Object.keys(MCP_SERVER_FIELDS) as McpServerVariant[];
const TYPE_ALIASES: Readonly<Record<string, string>> = {
  http: "streamable-http",
  https: "streamable-http",
  streamablehttp: "streamable-http",
  streamable_http: "streamable-http",
  remote: "streamable-http",
  local: "stdio",
  command: "stdio",
};

/** The outcome for one server: `component` when it loads. */
export interface ServerCheck {
  readonly component: McpServerComponent | undefined;
  readonly diagnostics: readonly Diagnostic[];
}

/** Checks the server `value` described by `context`. Never throws on any JSON value. */
export function checkMcpServer(context: ServerContext, value: JsonValue): ServerCheck {
  const self = locateInServer(context, "");
  if (!isJsonObject(value)) {
    return skipped([createDiagnostic(Diagnostics.McpServerNotObject, self.value, [context.name, describeKind(value)], { path: pathInServer(context, "") })]);
  }
  if (!Object.hasOwn(value, "type")) {
    return skipped([createDiagnostic(Diagnostics.McpServerTypeMissing, keyOrValue(self), [context.name], { path: pathInServer(context, "") })]);
  }
  const type = value.type;
  if (typeof type !== "string" || !VARIANTS.includes(type as McpServerVariant)) {
    const shown = typeof type === "string" ? `'${type}'` : describeKind(type);
    const hint =
      (typeof type === "string" ? didYouMeanHint(type, VARIANTS, TYPE_ALIASES) : undefined) ??
      "Agent Plugins v1 defines only the stdio, streamable-http and sse transports.";
    const at = locateInServer(context, "/type").value;
    return skipped([createDiagnostic(Diagnostics.McpServerTypeUnknown, at, [context.name, shown], { path: pathInServer(context, "/type"), hint })]);
  }
  const variant = type as McpServerVariant;
  const diagnostics = validateMcpServerSchema(variant, value).flatMap((issue) => mapIssue(context, variant, value, issue));
  diagnostics.push(...(variant === "stdio" ? checkStdioServer(context, value) : checkRemoteServer(context, value)));
  if (hasError(diagnostics)) return { component: undefined, diagnostics };
  return { component: { name: context.name, type: variant, config: cloneJson(value) }, diagnostics };
}

function skipped(diagnostics: readonly Diagnostic[]): ServerCheck {
  return { component: undefined, diagnostics };
}

function mapIssue(context: ServerContext, variant: McpServerVariant, server: JsonValue, issue: SchemaIssue): Diagnostic[] {
  const relativeSegments = segmentsInServer(context, issue.instancePath);
  const field = formatPropertyPath(relativeSegments);
  const at = locateInServer(context, issue.instancePath);
  const path = pathInServer(context, issue.instancePath);
  const actual = valueAtSegments(server, relativeSegments);
  const invalid = (reason: string, hint?: string): Diagnostic[] => [
    createDiagnostic(Diagnostics.McpServerFieldInvalid, at.value, [context.name, field, reason], { path, ...(hint ? { hint } : {}) }),
  ];
  switch (issue.keyword) {
    case "additionalProperties":
      return [unknownField(context, variant, schemaErrorProperty(issue)!)];
    case "required": {
      const missing = schemaErrorProperty(issue)!;
      const hint = missing === "command" ? 'Add "command": a bare executable name or a ./ path inside the plugin.' : 'Add "url": "https://…".';
      return [createDiagnostic(Diagnostics.McpServerRequiredFieldMissing, keyOrValue(locateInServer(context, "")), [context.name, variant, missing], { path: pathInServer(context, ""), hint })];
    }
    case "pattern": // the cwd forms, reported with their containment by checkStdioServer
    case "propertyNames": // reserved env names, reported by checkStdioServer
    case "not":
      return [];
    default:
      return invalid(schemaErrorReason(issue, actual), schemaErrorHint(issue, actual));
  }
}

function unknownField(context: ServerContext, variant: McpServerVariant, field: string): Diagnostic {
  const relative = `/${escapePointerSegment(field)}`;
  const owners = VARIANTS.filter((other) => other !== variant && MCP_SERVER_FIELDS[other].includes(field));
  const note = owners.length > 0 ? ` (it belongs to the ${owners.join(" and ")} variant${owners.length > 1 ? "s" : ""})` : "";
  const hint =
    didYouMeanHint(field, MCP_SERVER_FIELDS[variant]) ?? (owners.length > 0 ? `Remove '${field}', or change "type" to "${owners[0]}".` : `Remove '${field}'.`);
  return createDiagnostic(Diagnostics.McpServerUnknownField, keyOrValue(locateInServer(context, relative)), [context.name, field, variant, note], {
    path: pathInServer(context, relative),
    hint,
  });
}
