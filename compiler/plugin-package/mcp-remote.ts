/**
 * The rules of `streamable-http` and `sse` MCP servers that JSON Schema cannot express
 * (Agent Plugins v1 §7.2.1):
 * - `url` is an absolute http or https URL without user information or a fragment; http only
 *   for exactly `localhost` or a loopback IP literal (127.0.0.0/8, ::1); never expanded;
 * - header names are HTTP tokens and values are HTTP field values (RFC 9110 §5.1, §5.5);
 * - the same header name twice under different casing (or twice verbatim) invalidates the entry.
 *
 * Header and env values are never echoed in messages (they may hold secrets a plugin should
 * not have shipped).
 */
import { createDiagnostic, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { isJsonObject, type JsonObject } from "../../common/json-value.js";
import { keyOrValue, locateInServer, pathInServer, type ServerContext } from "./mcp-context.js";
import { escapePointerSegment } from "../../common/json-pointer.js";

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const CREDENTIAL_HEADERS = new Set(["authorization", "proxy-authorization", "cookie", "x-api-key", "api-key", "x-auth-token", "x-access-token", "private-token"]);
const CREDENTIAL_HEADER_NAME = /(token|secret|password|api[-_]?key)/i;

/** Checks `url` and `headers` of a remote server whose types are already right. */
export function checkRemoteServer(context: ServerContext, server: JsonObject): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  if (typeof server.url === "string" && server.url !== "") diagnostics.push(...checkUrl(context, server.url));
  if (isJsonObject(server.headers)) diagnostics.push(...checkHeaders(context, server.headers));
  return diagnostics;
}

/** True for exactly `localhost` or a loopback IP literal, as the WHATWG URL parser prints hostnames. */
export function isLoopbackHost(hostname: string): boolean {
  if (hostname === "localhost" || hostname === "[::1]") return true;
  if (/^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)) return hostname.startsWith("127.");
  return /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(hostname);
}

function checkUrl(context: ServerContext, url: string): Diagnostic[] {
  const at = locateInServer(context, "/url").value;
  const details = { path: pathInServer(context, "/url") };
  const invalid = (reason: string): Diagnostic[] => [createDiagnostic(Diagnostics.McpUrlInvalid, at, [context.name, reason], details)];
  if (/[\s\p{Cc}]/u.test(url)) return invalid("contains whitespace or control characters");
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(url);
  if (!scheme) return invalid("is not an absolute URL");
  if (!/^https?$/i.test(scheme[1]!)) return invalid(`uses the scheme '${scheme[1]}:'; only http and https are allowed`);
  if (!/^https?:\/\//i.test(url)) return invalid(`has no '//' after '${scheme[1]}:'`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return invalid("is not a valid URL");
  }
  const diagnostics: Diagnostic[] = [];
  const authority = url.slice(scheme[0].length + 2).split(/[/?#]/, 1)[0]!;
  if (authority.includes("@")) diagnostics.push(createDiagnostic(Diagnostics.McpUrlUserInfo, at, [context.name], details));
  if (url.includes("#")) diagnostics.push(createDiagnostic(Diagnostics.McpUrlFragment, at, [context.name], details));
  if (parsed.hostname === "") return [...diagnostics, ...invalid("has no host")];
  if (parsed.protocol === "http:" && !isLoopbackHost(parsed.hostname)) {
    diagnostics.push(createDiagnostic(Diagnostics.McpUrlNotHttps, at, [context.name, parsed.hostname], details));
  }
  return diagnostics;
}

function checkHeaders(context: ServerContext, headers: JsonObject): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const seen = new Map<string, string>();
  const headersPointer = `${context.pointer}/headers`;
  for (const duplicate of context.duplicates.filter((d) => d.objectPointer === headersPointer)) {
    diagnostics.push(
      createDiagnostic(Diagnostics.McpHeaderDuplicate, duplicate.location, [context.name, duplicate.key, duplicate.key], {
        path: pathInServer(context, `/headers/${escapePointerSegment(duplicate.key)}`),
        related: [{ ...duplicate.firstLocation, message: `'${duplicate.key}' is first declared here` }],
      }),
    );
  }
  for (const name of Object.keys(headers)) {
    const relative = `/headers/${escapePointerSegment(name)}`;
    const location = locateInServer(context, relative);
    const details = { path: pathInServer(context, relative) };
    if (!TOKEN.test(name)) diagnostics.push(createDiagnostic(Diagnostics.McpHeaderInvalidName, keyOrValue(location), [context.name, name], details));
    const value = headers[name];
    const problem = typeof value === "string" ? headerValueProblem(value) : undefined;
    if (problem) diagnostics.push(createDiagnostic(Diagnostics.McpHeaderInvalidValue, location.value, [context.name, name, problem], details));
    const folded = name.toLowerCase();
    const first = seen.get(folded);
    if (first !== undefined) {
      const firstLocation = keyOrValue(locateInServer(context, `/headers/${escapePointerSegment(first)}`));
      diagnostics.push(
        createDiagnostic(Diagnostics.McpHeaderDuplicate, keyOrValue(location), [context.name, name, first], {
          ...details,
          related: [{ ...firstLocation, message: `'${first}' is declared here` }],
        }),
      );
    } else {
      seen.set(folded, name);
    }
    if (typeof value === "string" && value.trim() !== "" && (CREDENTIAL_HEADERS.has(folded) || CREDENTIAL_HEADER_NAME.test(name))) {
      diagnostics.push(createDiagnostic(Diagnostics.McpCredentialInConfig, location.value, [context.name, `Header '${name}'`], details));
    }
  }
  return diagnostics;
}

/** Why `value` is not an RFC 9110 field value, without quoting it. */
function headerValueProblem(value: string): string | undefined {
  for (const ch of value) {
    const code = ch.codePointAt(0)!;
    if (code === 9 || (code >= 0x20 && code <= 0x7e) || (code >= 0x80 && code <= 0xff)) continue;
    const unicode = `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
    return code < 0x20 || code === 0x7f ? `contains the control character ${unicode}` : `contains ${unicode}, which cannot be sent in an HTTP header`;
  }
  if (/^[ \t]|[ \t]$/.test(value)) return "has leading or trailing whitespace";
  return undefined;
}
