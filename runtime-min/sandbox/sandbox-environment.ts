/**
 * The sandbox child's environment and Node permission flags (seed "Execution Model": "The
 * sandbox receives portable process basics plus declared non-secret ctx.config. It does not
 * receive host secrets"; issue 4 item 4).
 *
 * The environment is built from an explicit allowlist, never by copying `process.env`: no host
 * variable outside {@link SANDBOX_ENV_ALLOWLIST} reaches the child, and no `NODE_*` variable but
 * `NODE_EXTRA_CA_CERTS` (the doorbell is a plain pipe on fd 3, not Node IPC, which would add
 * `NODE_CHANNEL_FD`; `NODE_OPTIONS` could lift the permission model). `ctx.config` travels in the
 * call envelope, not in the environment.
 */
import * as path from "node:path";
import { WORKSPACE_TEMP_FOLDER } from "../execution/workspace-entries.js";

/**
 * Host variables copied into the sandbox when set: portable process basics, and where the host
 * keeps its extra trusted CA certificates (helper-78 D3: behind a TLS-intercepting proxy every
 * HTTPS request of a sandboxed tool failed with "self-signed certificate in certificate chain").
 *
 * The CA variables hold paths to public certificates, never credentials, and add trust the host
 * process itself already has. `NODE_EXTRA_CA_CERTS` is read by Node's own startup (not through
 * the `fs` API), so the permission model need not, and does not, let the tool read the file;
 * `SSL_CERT_FILE` and `SSL_CERT_DIR` are OpenSSL's, used by the shell commands of
 * `ctx.getSandbox().exec` (curl, git, Python) and ignored by Node unless `--use-openssl-ca`.
 */
export const SANDBOX_ENV_ALLOWLIST: readonly string[] = ["LANG", "LC_ALL", "NODE_EXTRA_CA_CERTS", "PATH", "SSL_CERT_DIR", "SSL_CERT_FILE", "TZ"];

const FALLBACK_PATH = "/usr/local/bin:/usr/bin:/bin";

/**
 * The child's environment: the allowlisted host variables, `HOME` set to the run's workspace
 * and `TMPDIR` to `<workspace>/.tmp`. Values containing a NUL are dropped.
 */
export function sandboxEnvironment(workspace: string, hostEnv: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of SANDBOX_ENV_ALLOWLIST) {
    const value = hostEnv[name];
    if (typeof value === "string" && !value.includes("\0")) env[name] = value;
  }
  env.PATH ??= FALLBACK_PATH;
  env.HOME = workspace;
  env.TMPDIR = path.join(workspace, WORKSPACE_TEMP_FOLDER);
  return env;
}

/** File-system access a child is granted. */
export interface SandboxAccess {
  /** Absolute paths the child may read (files or directories with everything below). */
  readonly read: readonly string[];
  /** Absolute paths the child may write. */
  readonly write: readonly string[];
}

/** Which permission-model flag this Node understands, if any. */
export type PermissionSupport = "--permission" | "--experimental-permission" | undefined;

/**
 * Detects the permission model through `process.allowedNodeEnvironmentFlags`: `--permission`
 * (Node 22.13+/23.5+) or `--experimental-permission` (Node 20–22), or none.
 */
export function detectPermissionSupport(): PermissionSupport {
  const flags = process.allowedNodeEnvironmentFlags;
  if (flags.has("--permission")) return "--permission";
  if (flags.has("--experimental-permission")) return "--experimental-permission";
  return undefined;
}

/**
 * Node flags of a sandbox child: the permission model with one `--allow-fs-read` /
 * `--allow-fs-write` flag per path (child processes, workers, addons and WASI stay denied),
 * `--no-addons`, and silence for the permission model's experimental warning.
 */
export function sandboxNodeFlags(access: SandboxAccess, support: PermissionSupport): string[] {
  const flags = ["--no-addons"];
  if (process.allowedNodeEnvironmentFlags.has("--disable-warning")) flags.push("--disable-warning=ExperimentalWarning");
  if (support === undefined) return flags;
  flags.push(support);
  for (const target of access.read) flags.push(`--allow-fs-read=${target}`);
  for (const target of access.write) flags.push(`--allow-fs-write=${target}`);
  return flags;
}
