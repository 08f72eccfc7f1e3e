/**
 * The rules of a `stdio` MCP server that JSON Schema cannot express (Agent Plugins v1 §4.1,
 * §7.2.1, §9.1, §9.2): `command` is one executable token, either a bare name or a `./` path
 * inside the plugin, never expanded; `cwd` has one of three forms and stays inside the plugin
 * root (or the plugin data directory) after placeholder expansion and symlink resolution; `env`
 * never names `PLUGIN_ROOT` or `PLUGIN_DATA`. `args` and `env` values are opaque strings and are
 * never checked as paths (§4.1 item 5).
 */
import { createDiagnostic, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { isJsonObject, type JsonObject } from "../../common/json-value.js";
import { serverSkipped } from "./consequences.js";
import { climbsAbove, relativeToRoot, resolvePluginRelative } from "./containment.js";
import { locateInServer, pathInServer, keyOrValue, type ServerContext } from "./mcp-context.js";
import { escapePointerSegment } from "../../common/json-pointer.js";

const RESERVED_ENV = ["PLUGIN_ROOT", "PLUGIN_DATA"] as const;
const CREDENTIAL_ENV = /(^|_)(TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIALS?)($|_)/i;

/** Checks `command`, `cwd` and `env` of a stdio server whose types are already right. */
export function checkStdioServer(context: ServerContext, server: JsonObject): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  if (typeof server.command === "string" && server.command !== "") diagnostics.push(...checkCommand(context, server.command));
  if (typeof server.cwd === "string") diagnostics.push(...checkCwd(context, server.cwd));
  if (isJsonObject(server.env)) diagnostics.push(...checkEnv(context, server.env));
  return diagnostics;
}

function checkCommand(context: ServerContext, command: string): Diagnostic[] {
  const at = locateInServer(context, "/command").value;
  const details = { path: pathInServer(context, "/command") };
  const invalid = (reason: string, hint?: string): Diagnostic[] => [
    createDiagnostic(Diagnostics.McpCommandInvalidForm, at, [context.name, command, reason], { ...details, ...(hint ? { hint } : {}) }),
  ];
  if (/\s/.test(command)) {
    const [executable = "", ...rest] = command.trim().split(/\s+/);
    return [createDiagnostic(Diagnostics.McpCommandNotSingleToken, at, [context.name, executable, rest.map((arg) => JSON.stringify(arg)).join(", ")], details)];
  }
  if (/\p{Cc}/u.test(command)) return invalid("contains control characters");
  if (command.startsWith("./")) {
    const resolved = resolvePluginRelative(context.host, context.rootReal, command.slice(2));
    if (resolved.inside) return [];
    return [createDiagnostic(Diagnostics.PathOutsidePluginRoot, at, [command, relativeToRoot(context.rootReal, resolved.resolved), serverSkipped(context.name)], details)];
  }
  if (command.includes("${")) {
    const rooted = /^\$\{PLUGIN_ROOT\}[\\/](.+)$/.exec(command);
    const hint = rooted ? `Write "./${rooted[1]}": a ./ path is resolved against the plugin root.` : "Write a bare executable name or a ./ path inside the plugin.";
    return invalid("contains a placeholder, but command is never expanded (Agent Plugins v1 §9.2)", hint);
  }
  if (command === "." || command === "..") return invalid("is a directory, not an executable name");
  if (/[\\/]/.test(command)) {
    if (command.startsWith("../")) return invalid("points outside the plugin root", "Bundle the executable inside the plugin and write ./<path>.");
    if (command.startsWith("/") || command.startsWith("\\") || /^[A-Za-z]:[\\/]/.test(command)) {
      return invalid("is an absolute path", "Use a bare executable name resolved on PATH, or bundle the executable and write ./<path>.");
    }
    return invalid("contains a path separator but does not begin with './'", `Write "./${command}".`);
  }
  return [];
}

function checkCwd(context: ServerContext, cwd: string): Diagnostic[] {
  const at = locateInServer(context, "/cwd").value;
  const details = { path: pathInServer(context, "/cwd") };
  const form = /^(?:\.\/|\$\{PLUGIN_ROOT\}(?:\/|$)|\$\{PLUGIN_DATA\}(?:\/|$))/.exec(cwd);
  if (!form) {
    const suggestion = cwd.replace(/^(?:\.{1,2}[\\/])+/, "").replace(/^[\\/]+/, "") || "work";
    return [createDiagnostic(Diagnostics.McpCwdInvalidForm, at, [context.name, cwd, suggestion], details)];
  }
  if (cwd.startsWith("${PLUGIN_DATA}")) {
    const rest = cwd.slice("${PLUGIN_DATA}".length);
    return climbsAbove(rest) ? [createDiagnostic(Diagnostics.McpCwdOutsideDataDirectory, at, [context.name, cwd], details)] : [];
  }
  const rest = cwd.startsWith("./") ? cwd.slice(2) : cwd.slice("${PLUGIN_ROOT}".length);
  const resolved = resolvePluginRelative(context.host, context.rootReal, rest);
  if (resolved.inside) return [];
  return [createDiagnostic(Diagnostics.PathOutsidePluginRoot, at, [cwd, relativeToRoot(context.rootReal, resolved.resolved), serverSkipped(context.name)], details)];
}

function checkEnv(context: ServerContext, env: JsonObject): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  for (const key of Object.keys(env)) {
    const location = locateInServer(context, `/env/${escapePointerSegment(key)}`);
    const details = { path: pathInServer(context, `/env/${escapePointerSegment(key)}`) };
    const reserved = RESERVED_ENV.find((name) => name === key);
    const folded = RESERVED_ENV.find((name) => name === key.toUpperCase());
    if (reserved) {
      diagnostics.push(createDiagnostic(Diagnostics.McpEnvReservedName, keyOrValue(location), [context.name, key], details));
    } else if (folded) {
      diagnostics.push(createDiagnostic(Diagnostics.McpEnvReservedNameCase, keyOrValue(location), [context.name, key, folded], details));
    }
    const value = env[key];
    if (!reserved && CREDENTIAL_ENV.test(key) && typeof value === "string" && value.trim() !== "" && !value.includes("${PLUGIN_")) {
      diagnostics.push(createDiagnostic(Diagnostics.McpCredentialInConfig, location.value, [context.name, `Environment variable '${key}'`], details));
    }
  }
  return diagnostics;
}
