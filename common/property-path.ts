/**
 * Property paths as people read them (DESIGN §7: a Diagnostic's `path`, e.g.
 * `tools.echo.inputSchema.properties.message.type`).
 */

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * Formats property-path segments for people: identifiers joined with `.`, array indices as
 * `[0]`, any other key quoted as `["my key"]`.
 *
 * @example formatPropertyPath(["tools", "echo", "inputSchema", "required", 0])
 *   // "tools.echo.inputSchema.required[0]"
 */
export function formatPropertyPath(segments: readonly PropertyKey[]): string {
  let out = "";
  for (const segment of segments) {
    if (typeof segment === "number") out += `[${segment}]`;
    else if (typeof segment === "string" && IDENTIFIER.test(segment))
      out += out === "" ? segment : `.${segment}`;
    else out += `[${JSON.stringify(String(segment))}]`;
  }
  return out;
}
