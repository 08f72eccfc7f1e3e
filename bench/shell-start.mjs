/**
 * The CPU (user + sys, this process and every process it waited for) of one isolated shell
 * command's start: `execInWorkspace` of `true` with the shell probe's tools, as `bash` and
 * `ctx.getSandbox().exec` run it, `calls` times after two warm-up commands.
 *
 *     node bench/shell-start.mjs [distDir = dist] [calls = 40]
 *
 * Prints one JSON line: `{ calls, hostMs, childrenMs, perCallMs }` (children: `cutime` +
 * `cstime` of /proc/self/stat, in clock ticks of 10 ms; over 40 calls that is ±0.25 ms a call).
 * Interleave two builds (A/B alternating, medians of ≥ 15 pairs): wall time on a loaded
 * machine is noise (house rules).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { parseScriptArgs } from "./lib.mjs";

const USAGE = `Usage: node bench/shell-start.mjs [distDir = dist] [calls = 40]   (npm run build first)

The CPU of one isolated shell command's start (execInWorkspace of \`true\`), one JSON line.

Options:
  -h, --help       print this and exit
`;
const { positionals } = parseScriptArgs({ script: "bench/shell-start.mjs", usage: USAGE, options: {}, allowPositionals: true });
const dist = path.resolve(positionals[0] ?? "dist");
const calls = Number(positionals[1] ?? 40);
const load = (file) => import(pathToFileURL(path.join(dist, file)).href);
const { execInWorkspace, ensureWorkspace } = await load("runtime-min/execution/workspace.js");
const { probeShellIsolation } = await load("runtime-min/sandbox/shell-isolation.js");

/** The CPU of the children this process waited for, in ms (fields 16 and 17 of /proc/self/stat, in ticks). */
function childrenMs() {
  const stat = fs.readFileSync("/proc/self/stat", "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // Fields after the command name start at field 3; cutime is field 16, cstime 17.
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

const probe = await probeShellIsolation();
if (!probe.available) throw new Error(probe.reason);
const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "al-shell-bench-")));
try {
  const workspace = ensureWorkspace(path.join(base, ".assemblyline"), "bench");
  for (let i = 0; i < 2; i += 1) await execInWorkspace(workspace, "true", 10_000, probe.tools);
  const hostBefore = process.cpuUsage();
  const childrenBefore = childrenMs();
  for (let i = 0; i < calls; i += 1) {
    const result = await execInWorkspace(workspace, "true", 10_000, probe.tools);
    if (result.exitCode !== 0) throw new Error(`exit ${result.exitCode}: ${result.stderr}`);
  }
  const host = process.cpuUsage(hostBefore);
  const hostMs = (host.user + host.system) / 1000;
  const children = childrenMs() - childrenBefore;
  console.log(JSON.stringify({ calls, hostMs, childrenMs: children, perCallMs: (hostMs + children) / calls }));
} finally {
  fs.rmSync(base, { recursive: true, force: true });
}
