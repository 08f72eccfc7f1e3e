/**
 * `npm run demo`: the main job on the example agent, end to end, with the real CLI:
 * compile examples/support-agent (lock + artifact), then call the echo and search tools from
 * the artifact as a host would, printing what the model sees.
 */
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const cli = path.join(repo, "dist", "bin", "assembly-line.cjs");
const agent = path.join("examples", "support-agent");

/** Quotes an argument for a POSIX shell, so the printed command can be pasted as is. */
const quote = (arg) => (/^[A-Za-z0-9@%+=:,./_-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`);

function step(title, args) {
  console.log(`\n$ npx assembly-line ${args.map(quote).join(" ")}`);
  const result = spawnSync(process.execPath, [cli, ...args], { cwd: repo, stdio: "inherit" });
  if (result.status !== 0) {
    console.error(`\n${title} failed (exit ${result.status}).`);
    process.exit(result.status ?? 2);
  }
}

console.log("Assembly Line demo: compile the example agent, then run two of its tools from the artifact.");
step("compile", ["compile", agent]);
step("echo", ["call", "echo", agent, "--input", JSON.stringify({ message: "Hello from the demo" })]);
step("search", ["call", "search", agent, "--input", JSON.stringify({ query: "rain" }), "--config", "SEARCH_API_URL=https://search.example.com"]);
console.log("\nThe lock is examples/support-agent/plugins.lock; the artifact is examples/support-agent/.assemblyline/build/.");
