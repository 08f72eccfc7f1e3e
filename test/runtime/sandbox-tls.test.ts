/**
 * HTTPS from a sandboxed tool behind a TLS-intercepting proxy (helper-78 D3): the host trusts the
 * proxy's CA through `NODE_EXTRA_CA_CERTS`, and the sandbox process must too. A local HTTPS
 * server with a self-signed certificate (made with the `openssl` CLI) stands for the proxy; the
 * certificate lies outside the run's workspace, where the tool itself may not read.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as https from "node:https";
import type { AddressInfo } from "node:net";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openRuntime, type Runtime } from "../../runtime-min/index.js";
import { tempDir } from "../helpers/temp-tree.js";
import { createAgent, type AgentFixture } from "./helpers/agent-fixture.js";

const hasOpenssl = (() => {
  try {
    execFileSync("openssl", ["version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

let agent: AgentFixture;
let runtime: Runtime;
let server: https.Server;
let url: string;
let certFile: string;
const saved = process.env.NODE_EXTRA_CA_CERTS;

beforeAll(async () => {
  // Fails, never skips, without openssl (.ci/run installs Debian's openssl when it is missing).
  if (!hasOpenssl) throw new Error("The openssl executable is required by this test (Debian/Ubuntu: apt-get install -y openssl): it makes the stand-in proxy's certificate.");
  const dir = tempDir("al-tls-");
  certFile = path.join(dir, "proxy-ca.pem");
  const keyFile = path.join(dir, "proxy-key.pem");
  execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", keyFile, "-out", certFile, "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"], { stdio: "ignore" });
  server = https.createServer({ key: fs.readFileSync(keyFile), cert: fs.readFileSync(certFile) }, (_request, response) => response.end("through the proxy"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  agent = await createAgent([{ name: "fetch_url", file: "probes.ts", factory: "fetchUrl" }]);
  runtime = await openRuntime({ root: agent.root });
});

afterAll(async () => {
  await runtime?.close();
  agent?.cleanup();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  if (saved === undefined) delete process.env.NODE_EXTRA_CA_CERTS;
  else process.env.NODE_EXTRA_CA_CERTS = saved;
});

describe("HTTPS from a sandboxed tool with the host's NODE_EXTRA_CA_CERTS", () => {
  it("trusts the host's extra CA certificates, read from outside the workspace", async () => {
    process.env.NODE_EXTRA_CA_CERTS = certFile;
    const result = await runtime.call({ tool: "fetch_url", input: { url }, runId: "tls-trusted" });
    expect(result).toMatchObject({ status: "ok", output: { status: 200, body: "through the proxy" } });
  });

  it("without them fails, and the error names the cause", async () => {
    delete process.env.NODE_EXTRA_CA_CERTS;
    const result = await runtime.call({ tool: "fetch_url", input: { url }, runId: "tls-untrusted" });
    expect(result).toMatchObject({ status: "failed", failure: { kind: "execution_error" } });
    expect(result.error).toBe("fetch failed (cause: self-signed certificate)");
  });
});
