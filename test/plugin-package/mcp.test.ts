/** mcp.json (Agent Plugins v1 §7.2, §9, §10.1): one test per diagnostic code, with exact positions. */
import { describe, expect, it } from "vitest";
import { isLoopbackHost } from "../../compiler/plugin-package/mcp-remote.js";
import { expectDiagnostic, load, MCP_SCHEMA, mcpJson, skill } from "./helpers.js";

const servers = (pkg: ReturnType<typeof load>) => ({
  status: pkg.mcpStatus,
  loaded: pkg.mcpServers.map((s) => s.name),
  skipped: (pkg.skippedMcpServers ?? []).map((s) => s.name),
});

/** Column of `needle` inside the configuration of server `bad`, written on line 5 after `    "bad": `. */
function col(config: string, needle: string): number {
  expect(config).toContain(needle);
  return '    "bad": '.length + config.indexOf(needle) + 1;
}

/** A plugin whose mcp.json holds `fine` (valid) and `bad` (on line 5) servers. */
function withBad(bad: string) {
  return load({ "mcp.json": mcpJson({ fine: `{ "type": "stdio", "command": "node" }`, bad }) });
}

describe("mcp.json document", () => {
  it("absent mcp.json is not an error; an empty mcpServers is configured", () => {
    expect(load({}).mcpStatus).toBe("absent");
    const empty = load({ "mcp.json": `{ "$schema": "${MCP_SCHEMA}", "mcpServers": {} }` });
    expect(servers(empty)).toEqual({ status: "configured", loaded: [], skipped: [] });
    expect(empty.diagnostics).toEqual([]);
  });

  it("loads the three transports and keeps each configuration as written", () => {
    const pkg = load({
      "mcp.json": mcpJson({
        local: `{ "type": "stdio", "command": "./bin/server", "args": ["--data", "\${PLUGIN_DATA}/x", "../opaque"], "env": { "CONFIG": "\${PLUGIN_ROOT}/c.json" }, "cwd": "\${PLUGIN_ROOT}" }`,
        remote: `{ "type": "streamable-http", "url": "https://example.com/mcp", "headers": { "X-Tenant": "public" } }`,
        legacy: `{ "type": "sse", "url": "http://[::1]:9000/sse" }`,
      }),
    });
    expect(servers(pkg)).toEqual({ status: "configured", loaded: ["legacy", "local", "remote"], skipped: [] });
    expect(pkg.diagnostics).toEqual([]);
    expect(pkg.mcpServers.find((s) => s.name === "local")!.config.cwd).toBe("${PLUGIN_ROOT}");
  });

  it("AL2007: invalid JSON disables MCP and nothing else", () => {
    const pkg = load({ "mcp.json": `{\n  "$schema": "${MCP_SCHEMA}",\n  "mcpServers": {\n`, "skills/a/SKILL.md": skill("a") });
    expect(servers(pkg)).toEqual({ status: "invalid", loaded: [], skipped: [] });
    expect(pkg.skills.map((s) => s.name)).toEqual(["a"]);
    expectDiagnostic(pkg, { code: "AL2007", file: "mcp.json", line: 4, column: 1 });
  });

  it("AL2009: mcp.json must be a regular file", () => {
    const pkg = load({ "mcp.json/.keep": "x" });
    expect(pkg.mcpStatus).toBe("invalid");
    expectDiagnostic(pkg, { code: "AL2009", file: "mcp.json", line: 1, column: 1 });
  });

  it("AL2003: an escaping mcp.json is never read", () => {
    const pkg = load({ "mcp.json": { symlink: "../outside/mcp.json" } }, { "/work/outside/mcp.json": "{ not even json" });
    expect(pkg.mcpStatus).toBe("invalid");
    expect(pkg.diagnostics.map((d) => d.code)).toEqual(["AL2003"]);
  });

  it("AL2004: a dangling mcp.json link disables MCP", () => {
    const pkg = load({ "mcp.json": { symlink: "gone.json" } });
    expect(pkg.mcpStatus).toBe("invalid");
    expectDiagnostic(pkg, { code: "AL2004", file: "mcp.json", line: 1, column: 1, severity: "error" });
  });

  it("AL2301: the top level must be an object", () => {
    const pkg = load({ "mcp.json": "[]" });
    expect(pkg.mcpStatus).toBe("invalid");
    expectDiagnostic(pkg, { code: "AL2301", file: "mcp.json", line: 1, column: 1 });
  });

  it("AL2302 and AL2306: unknown top-level fields and a non-object mcpServers, all reported", () => {
    const pkg = load({ "mcp.json": `{\n  "$schema": "${MCP_SCHEMA}",\n  "mcpServers": [],\n  "fallbackServers": {}\n}` });
    expect(pkg.mcpStatus).toBe("invalid");
    expectDiagnostic(pkg, { code: "AL2306", file: "mcp.json", line: 3, column: 17, path: "mcpServers" });
    expectDiagnostic(pkg, { code: "AL2302", file: "mcp.json", line: 4, column: 3, path: "fallbackServers" });
  });

  it("AL2303: $schema and mcpServers are required", () => {
    const pkg = load({ "mcp.json": `{ "mcpServers": {} }` });
    expect(pkg.mcpStatus).toBe("invalid");
    const d = expectDiagnostic(pkg, { code: "AL2303", file: "mcp.json", line: 1, column: 1 });
    expect(d.hint).toContain(MCP_SCHEMA);
  });

  it("AL2304: an unrecognised $schema", () => {
    const pkg = load({ "mcp.json": `{\n  "$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json",\n  "mcpServers": {}\n}` });
    expect(pkg.mcpStatus).toBe("invalid");
    expectDiagnostic(pkg, { code: "AL2304", file: "mcp.json", line: 2, column: 14, path: "$schema" });
  });

  it("AL2305: a version other than plugin.json's, reported once with a related location", () => {
    const pkg = load({
      "mcp.json": `{\n  "$schema": "https://agent-plugins.org/schemas/2.0.0/mcp.schema.json",\n  "mcpServers": { "x": { "type": "bogus" } }\n}`,
    });
    expect(servers(pkg)).toEqual({ status: "invalid", loaded: [], skipped: [] });
    const d = expectDiagnostic(pkg, { code: "AL2305", file: "mcp.json", line: 2, column: 14, path: "$schema" });
    expect(d.related).toEqual([{ file: "/work/plugin/plugin.json", line: 2, column: 14, endLine: 2, endColumn: 74, message: "plugin.json targets Agent Plugins 1.0.0 here" }]);
    expect(pkg.diagnostics).toHaveLength(1);
  });

  it("AL2008: duplicate keys are warnings (the last wins)", () => {
    const pkg = load({ "mcp.json": `{\n  "$schema": "${MCP_SCHEMA}",\n  "mcpServers": {},\n  "mcpServers": { "a": { "type": "stdio", "command": "x" } }\n}` });
    expect(servers(pkg).loaded).toEqual(["a"]);
    const d = expectDiagnostic(pkg, { code: "AL2008", file: "mcp.json", line: 4, column: 3, path: "mcpServers", severity: "warning" });
    expect(d.related?.[0]?.line).toBe(3);
  });
});

describe("mcp.json servers (each skipped alone)", () => {
  it("AL2310: a server must be an object", () => {
    const pkg = withBad(`"nope"`);
    expect(servers(pkg)).toEqual({ status: "configured", loaded: ["fine"], skipped: ["bad"] });
    expect(pkg.skippedMcpServers).toEqual([{ name: "bad", file: "/work/plugin/mcp.json", codes: ["AL2310"] }]);
    expectDiagnostic(pkg, { code: "AL2310", file: "mcp.json", line: 5, column: 12, path: "mcpServers.bad" });
  });

  it("AL2311: type is required", () => {
    const pkg = withBad(`{ "command": "x" }`);
    expectDiagnostic(pkg, { code: "AL2311", file: "mcp.json", line: 5, column: 5, path: "mcpServers.bad" });
  });

  it("AL2312: an unknown type, with a suggestion, and a non-string type never crashes", () => {
    const pkg = withBad(`{ "type": "http", "url": "https://x.example" }`);
    const d = expectDiagnostic(pkg, { code: "AL2312", file: "mcp.json", line: 5, column: 22, path: "mcpServers.bad.type" });
    expect(d.hint).toBe("Did you mean 'streamable-http'?");
    expect(servers(withBad(`{ "type": ["stdio"], "command": "x" }`)).skipped).toEqual(["bad"]);
  });

  it("AL2313: variants are closed; a field of another variant says so", () => {
    const config = `{ "type": "stdio", "command": "x", "url": "https://x.example" }`;
    const d = expectDiagnostic(withBad(config), { code: "AL2313", file: "mcp.json", line: 5, column: col(config, `"url"`), path: "mcpServers.bad.url" });
    expect(d.message).toContain("(it belongs to the streamable-http and sse variants)");
  });

  it("AL2314: command and url are required", () => {
    const pkg = withBad(`{ "type": "streamable-http" }`);
    expectDiagnostic(pkg, { code: "AL2314", file: "mcp.json", line: 5, column: 5, path: "mcpServers.bad" });
  });

  it("AL2315: wrong types and empty strings", () => {
    const args = `{ "type": "stdio", "command": "x", "args": "--flag" }`;
    expectDiagnostic(withBad(args), { code: "AL2315", file: "mcp.json", line: 5, column: col(args, `"--flag"`), path: "mcpServers.bad.args" });
    const env = `{ "type": "stdio", "command": "x", "env": { "RETRIES": 3 } }`;
    expectDiagnostic(withBad(env), { code: "AL2315", file: "mcp.json", line: 5, column: col(env, "3 }"), path: "mcpServers.bad.env.RETRIES" });
    const empty = withBad(`{ "type": "stdio", "command": "" }`);
    expect(empty.diagnostics.map((d) => d.message)).toEqual(["'command' of MCP server 'bad' must not be empty; the server is skipped (Agent Plugins v1 §7.2.1)."]);
  });

  it("AL2316: command is one token", () => {
    const config = `{ "type": "stdio", "command": "node server.js --port 8080" }`;
    const d = expectDiagnostic(withBad(config), { code: "AL2316", file: "mcp.json", line: 5, column: col(config, `"node`), path: "mcpServers.bad.command" });
    expect(d.hint).toBe('Put the executable in "command" and each argument in "args": "command": "node", "args": ["server.js", "--port", "8080"].');
  });

  it("AL2317: command forms (separator without ./, absolute, ../, placeholder)", () => {
    for (const command of ["bin/server", "/usr/bin/x", "../bin/server", "${PLUGIN_ROOT}/bin/server", "C:\\tools\\x.exe", "."]) {
      const config = `{ "type": "stdio", "command": ${JSON.stringify(command)} }`;
      const pkg = withBad(config);
      expect(servers(pkg).skipped, command).toEqual(["bad"]);
      expectDiagnostic(pkg, { code: "AL2317", file: "mcp.json", line: 5, column: col(config, JSON.stringify(command)), path: "mcpServers.bad.command" });
    }
    expect(servers(withBad(`{ "type": "stdio", "command": "./bin/../bin/x" }`)).skipped).toEqual([]);
  });

  it("AL2003: a ./ command or cwd that leaves the plugin root, lexically or through a link", () => {
    const config = `{ "type": "stdio", "command": "./../outside/x" }`;
    const d = expectDiagnostic(withBad(config), { code: "AL2003", file: "mcp.json", line: 5, column: col(config, `"./..`), path: "mcpServers.bad.command" });
    expect(d.message).toBe("'./../outside/x' resolves to '../outside/x', outside the plugin root; MCP server 'bad' is skipped (Agent Plugins v1 §4.1, §7.2.2).");
    const linkedConfig = `{ "type": "stdio", "command": "node", "cwd": "\${PLUGIN_ROOT}/data" }`;
    const linked = load({ "mcp.json": mcpJson({ bad: linkedConfig }), data: { symlink: "../elsewhere" } }, { "/work/elsewhere/.keep": "" });
    expect(servers(linked).skipped).toEqual(["bad"]);
    // The only server is on line 4.
    expectDiagnostic(linked, { code: "AL2003", file: "mcp.json", line: 4, column: col(linkedConfig, `"\${PLUGIN_ROOT}`), path: "mcpServers.bad.cwd" });
  });

  it("AL2318: cwd forms", () => {
    const config = `{ "type": "stdio", "command": "x", "cwd": "data" }`;
    const d = expectDiagnostic(withBad(config), { code: "AL2318", file: "mcp.json", line: 5, column: col(config, `"data"`), path: "mcpServers.bad.cwd" });
    expect(d.hint).toBe("Write './data' for a directory inside the plugin, or '${PLUGIN_DATA}/data' for writable state.");
    for (const cwd of ["./work", "./work/../work", "${PLUGIN_ROOT}", "${PLUGIN_ROOT}/work", "${PLUGIN_DATA}", "${PLUGIN_DATA}/cache"]) {
      expect(servers(withBad(`{ "type": "stdio", "command": "x", "cwd": ${JSON.stringify(cwd)} }`)).skipped, cwd).toEqual([]);
    }
    for (const cwd of ["../escape", "/abs", "${PLUGIN_ROOT}x", "$PLUGIN_ROOT/x", "."]) {
      expect(servers(withBad(`{ "type": "stdio", "command": "x", "cwd": ${JSON.stringify(cwd)} }`)).skipped, cwd).toEqual(["bad"]);
    }
  });

  it("AL2319: a ${PLUGIN_DATA} cwd stays in the data directory", () => {
    const config = `{ "type": "stdio", "command": "x", "cwd": "\${PLUGIN_DATA}/a/../../out" }`;
    expectDiagnostic(withBad(config), { code: "AL2319", file: "mcp.json", line: 5, column: col(config, `"\${PLUGIN_DATA}`), path: "mcpServers.bad.cwd" });
  });

  it("AL2320 and AL2321: reserved env names (exact is invalid, other casing is a warning)", () => {
    const config = `{ "type": "stdio", "command": "x", "env": { "PLUGIN_DATA": "/tmp" } }`;
    expectDiagnostic(withBad(config), { code: "AL2320", file: "mcp.json", line: 5, column: col(config, `"PLUGIN_DATA"`), path: "mcpServers.bad.env.PLUGIN_DATA" });
    const foldedConfig = `{ "type": "stdio", "command": "x", "env": { "plugin_root": "/tmp" } }`;
    const folded = withBad(foldedConfig);
    expect(servers(folded).skipped).toEqual([]);
    expectDiagnostic(folded, { code: "AL2321", file: "mcp.json", line: 5, column: col(foldedConfig, `"plugin_root"`), path: "mcpServers.bad.env.plugin_root", severity: "warning" });
  });

  it("AL2322: url must be an absolute http(s) URL", () => {
    for (const url of ["wss://x.example/mcp", "example.com/mcp", "https:example.com", "https://exa mple.com", "https://"]) {
      const config = `{ "type": "sse", "url": ${JSON.stringify(url)} }`;
      const pkg = withBad(config);
      expect(pkg.diagnostics.map((d) => [d.code, d.line, d.column, d.path]), url).toEqual([["AL2322", 5, col(config, JSON.stringify(url)), "mcpServers.bad.url"]]);
    }
  });

  it("AL2323: http only for loopback", () => {
    const config = `{ "type": "streamable-http", "url": "http://example.com/mcp" }`;
    expectDiagnostic(withBad(config), { code: "AL2323", file: "mcp.json", line: 5, column: col(config, `"http:`), path: "mcpServers.bad.url" });
    for (const url of ["http://localhost:8080/mcp", "http://127.0.0.1/mcp", "http://127.9.9.9/mcp", "http://[::1]:9000/sse"]) {
      expect(servers(withBad(`{ "type": "sse", "url": ${JSON.stringify(url)} }`)).skipped, url).toEqual([]);
    }
    expect(isLoopbackHost("localhost.")).toBe(false);
    expect(isLoopbackHost("128.0.0.1")).toBe(false);
    expect(isLoopbackHost("[::ffff:7f00:1]")).toBe(true);
  });

  it("AL2324: no user information (and the URL is not echoed)", () => {
    const config = `{ "type": "sse", "url": "https://user:hunter2@x.example/mcp" }`;
    const d = expectDiagnostic(withBad(config), { code: "AL2324", file: "mcp.json", line: 5, column: col(config, `"https`), path: "mcpServers.bad.url" });
    expect(d.message).not.toContain("hunter2");
  });

  it("AL2325: no fragment", () => {
    const config = `{ "type": "sse", "url": "https://x.example/events#stream" }`;
    expectDiagnostic(withBad(config), { code: "AL2325", file: "mcp.json", line: 5, column: col(config, `"https`), path: "mcpServers.bad.url" });
  });

  it("AL2326 and AL2327: header names are tokens, values are field values", () => {
    const config = `{ "type": "sse", "url": "https://x.example", "headers": { "Bad Header": "a\\u0001b" } }`;
    const pkg = withBad(config);
    expectDiagnostic(pkg, { code: "AL2326", file: "mcp.json", line: 5, column: col(config, `"Bad Header"`), path: 'mcpServers.bad.headers["Bad Header"]' });
    const d = expectDiagnostic(pkg, { code: "AL2327", file: "mcp.json", line: 5, column: col(config, `"a\\u`), path: 'mcpServers.bad.headers["Bad Header"]' });
    expect(d.message).toContain("control character U+0001");
    expect(servers(withBad(`{ "type": "sse", "url": "https://x.example", "headers": { "X-A": " padded" } }`)).skipped).toEqual(["bad"]);
  });

  it("AL2328: the same header twice, under different casing or verbatim", () => {
    const config = `{ "type": "sse", "url": "https://x.example", "headers": { "X-Tenant": "a", "x-tenant": "b" } }`;
    const d = expectDiagnostic(withBad(config), { code: "AL2328", file: "mcp.json", line: 5, column: col(config, `"x-tenant"`), path: 'mcpServers.bad.headers["x-tenant"]' });
    expect(d.related?.map((r) => [r.line, r.column])).toEqual([[5, col(config, `"X-Tenant"`)]]);
    const verbatim = withBad(`{ "type": "sse", "url": "https://x.example", "headers": { "X-A": "a", "X-A": "b" } }`);
    expect(servers(verbatim).skipped).toEqual(["bad"]);
    expect(verbatim.diagnostics.map((d) => d.code).sort()).toEqual(["AL2008", "AL2328"]);
  });

  it("AL2329: credential-looking headers and env values are warnings and never echoed", () => {
    const config = `{ "type": "sse", "url": "https://x.example", "headers": { "Authorization": "Bearer s3cr3t" } }`;
    const pkg = withBad(config);
    expect(servers(pkg).skipped).toEqual([]);
    const d = expectDiagnostic(pkg, { code: "AL2329", file: "mcp.json", line: 5, column: col(config, `"Bearer`), path: "mcpServers.bad.headers.Authorization", severity: "warning" });
    expect(JSON.stringify(d)).not.toContain("s3cr3t");
    const envConfig = `{ "type": "stdio", "command": "x", "env": { "GITHUB_TOKEN": "ghp_123" } }`;
    expectDiagnostic(withBad(envConfig), { code: "AL2329", file: "mcp.json", line: 5, column: col(envConfig, `"ghp_`), path: "mcpServers.bad.env.GITHUB_TOKEN" });
    expect(withBad(`{ "type": "stdio", "command": "x", "env": { "TOKEN_FILE": "\${PLUGIN_DATA}/token" } }`).diagnostics).toEqual([]);
  });

  it("keys such as __proto__ and constructor are plain server names", () => {
    const pkg = load({ "mcp.json": mcpJson({ ["__proto__"]: `{ "type": "stdio", "command": "a" }`, constructor: `{ "type": "stdio", "command": "b" }` }) });
    expect(servers(pkg).loaded).toEqual(["__proto__", "constructor"]);
    expect(Object.getPrototypeOf(pkg.mcpServers[0]!.config)).toBe(Object.prototype);
  });
});
