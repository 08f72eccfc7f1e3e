/**
 * The host commands compile first only when the artifact is missing or stale (DESIGN §7), so
 * runtime-min's verification still guards the artifact they run: a bundle changed after
 * packaging is refused (AL8012, exit 1) and left as it is, while a changed plugin is compiled
 * (the lock and the artifact move on, and stderr says the lock was updated).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { copyAgent } from "../helpers/copy-agent.js";
import { runCli, runCliJson } from "../helpers/run-cli.js";
import { repoRoot } from "../helpers/temp-tree.js";

let root: string;
const bundleOf = (tool: string): string => {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, ".assemblyline/build/manifest.json"), "utf8")) as {
    surfaces: Record<string, { tools: Record<string, { bundle: string }> }>;
  };
  return path.join(root, ".assemblyline/build", manifest.surfaces["."]!.tools[tool]!.bundle);
};

beforeAll(() => {
  root = copyAgent(path.join(repoRoot, "examples", "support-agent"));
});

describe("call, approve, tools and search compile first only when needed", () => {
  it("builds a missing artifact, then leaves a current one alone", () => {
    const first = runCliJson(["call", "echo", root, "--input", '{"message":"one"}']);
    expect(first.json).toMatchObject({ status: "ok", output: { message: "one" } });
    // The committed lock was current: nothing to say about it.
    expect(first.stderr).not.toContain("plugins.lock was updated");
    const manifest = path.join(root, ".assemblyline/build/manifest.json");
    const before = fs.statSync(manifest).mtimeMs;
    expect(runCliJson(["call", "echo", root, "--input", '{"message":"two"}']).json).toMatchObject({ status: "ok" });
    expect(fs.statSync(manifest).mtimeMs).toBe(before);
  });

  it("the compile-first check keeps the analysis cache, so the next command starts warm", () => {
    runCliJson(["compile", root]);
    const cache = path.join(root, ".assemblyline/cache");
    fs.rmSync(cache, { recursive: true, force: true });
    expect(runCliJson(["call", "echo", root, "--input", '{"message":"warm"}']).json).toMatchObject({ status: "ok" });
    expect(fs.readdirSync(cache)).toContain("analysis.bin");
  });

  it("refuses a bundle changed after packaging (AL8012, exit 1) and does not repackage it", () => {
    runCliJson(["compile", root]);
    const bundle = bundleOf("echo");
    const tampered = `${fs.readFileSync(bundle, "utf8")}\n// changed after packaging\n`;
    fs.writeFileSync(bundle, tampered);
    const refused = runCliJson(["call", "echo", root, "--input", '{"message":"x"}']);
    expect(refused.status).toBe(1);
    expect(refused.json).toMatchObject({ status: "failed", diagnostics: [{ code: "AL8012" }] });
    expect(fs.readFileSync(bundle, "utf8")).toBe(tampered);
    for (const command of [["tools", root], ["search", "echo", root]]) {
      const run = runCli([...command, "--format", "json"]);
      expect(run.status).toBe(1);
      expect(run.stdout).toContain("AL8012");
    }
    // `compile` is the user's explicit request to rebuild: it restores the bundle.
    expect(runCliJson(["compile", root]).status).toBe(0);
    expect(runCliJson(["call", "echo", root, "--input", '{"message":"y"}']).json).toMatchObject({ status: "ok" });
  });

  it("says the lock was written, not updated, for an agent that had none (helper-67's trial)", () => {
    const fresh = copyAgent(path.join(repoRoot, "examples", "support-agent"));
    fs.rmSync(path.join(fresh, "plugins.lock"));
    const run = runCli(["tools", fresh, "--format", "json"]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toContain(`the agent (${fresh}) had no plugins.lock, so it was compiled first, and ${path.join(fresh, "plugins.lock")} was written`);
    expect(run.stderr).not.toContain("did not match the agent");
    expect(fs.existsSync(path.join(fresh, "plugins.lock"))).toBe(true);
  });

  it("names a hand-edited lock as a cause too, not only a changed agent (new-user trial E9)", () => {
    const agent = copyAgent(path.join(repoRoot, "examples", "support-agent"));
    expect(runCliJson(["compile", agent]).status).toBe(0);
    const lock = path.join(agent, "plugins.lock");
    const compiled = fs.readFileSync(lock, "utf8");
    fs.writeFileSync(lock, compiled.replace("Echo a message back to the caller.", "Echo, edited by hand."));
    const run = runCli(["tools", agent, "--format", "json"]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toContain(`${lock} did not match the agent (${agent}): the agent changed since its last compile, or the lock was edited.`);
    expect(fs.readFileSync(lock, "utf8")).toBe(compiled);
  });

  it("says a lock with Git conflict markers was recomputed, and that Git needs it staged (new-user trial of 6 December)", () => {
    const agent = copyAgent(path.join(repoRoot, "examples", "support-agent"));
    expect(runCliJson(["compile", agent]).status).toBe(0);
    const lock = path.join(agent, "plugins.lock");
    const compiled = fs.readFileSync(lock, "utf8");
    fs.writeFileSync(lock, `<<<<<<< HEAD\n${compiled}=======\n${compiled.replace("Echo a message back to the caller.", "Echo, theirs.")}>>>>>>> theirs\n`);
    const run = runCli(["tools", agent, "--format", "json"]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toContain(`${lock} had Git conflict markers, so the agent (${agent}) was compiled first and ${lock} was recomputed from its inputs`);
    expect(run.stderr).toContain(`then \`git add ${lock}\` and commit to finish the merge`);
    expect(run.stderr).not.toContain("did not match the agent");
    expect(fs.readFileSync(lock, "utf8")).toBe(compiled);
  });

  it("--locked never compiles: a changed plugin, an edited lock or a missing artifact is AL8068 (exit 1) and nothing is written (security trial 128)", () => {
    const agent = copyAgent(path.join(repoRoot, "examples", "support-agent"));
    const lock = path.join(agent, "plugins.lock");
    const committed = fs.readFileSync(lock, "utf8");
    // No artifact yet: refused, not built.
    const missing = runCliJson(["call", "echo", agent, "--input", '{"message":"x"}', "--locked"]);
    expect(missing.status).toBe(1);
    expect(missing.json.diagnostics.map((d: { code: string }) => d.code)).toEqual(["AL8068"]);
    expect(missing.json.diagnostics[0].message).toBe("--locked: there is no artifact, and --locked never compiles first.");
    expect(fs.existsSync(path.join(agent, ".assemblyline/build"))).toBe(false);
    // Compiled: --locked runs it.
    expect(runCliJson(["compile", agent]).status).toBe(0);
    expect(runCliJson(["call", "echo", agent, "--input", '{"message":"y"}', "--locked"]).json).toMatchObject({ status: "ok", output: { message: "y" } });
    // A plugin changed after: refused with the lock's own AL6002, the lock and the artifact left as they were.
    for (const file of ["index.ts", "echo.ts"]) {
      const at = path.join(agent, "plugins/example/ai.assemblyline", file);
      fs.writeFileSync(at, fs.readFileSync(at, "utf8").replace("Echo a message back to the caller.", "Echo, changed by the plugin's author."));
    }
    const manifest = fs.readFileSync(path.join(agent, ".assemblyline/build/manifest.json"));
    for (const command of [["call", "echo", agent, "--input", '{"message":"z"}'], ["tools", agent], ["search", "echo", agent]]) {
      const run = runCli([...command, "--locked", "--format", "json"]);
      expect(run.status, command[0]).toBe(1);
      const codes = JSON.parse(run.stdout).diagnostics.map((d: { code: string }) => d.code);
      expect(codes, command[0]).toEqual(["AL6002", "AL8068"]);
      expect(run.stderr).not.toContain("was compiled first");
    }
    const pretty = runCli(["tools", agent, "--locked"]);
    expect(pretty.stderr).toContain("error AL8068: --locked: plugins.lock is not what a compile of the agent would write, and --locked never compiles first.");
    expect(pretty.stderr).toMatch(/hint: Run `\S.* compile \S*support-agent` and commit plugins\.lock/);
    expect(fs.readFileSync(lock, "utf8")).toBe(committed);
    expect(fs.readFileSync(path.join(agent, ".assemblyline/build/manifest.json")).equals(manifest)).toBe(true);
    // Without --locked the same command compiles first, as before.
    expect(runCli(["tools", agent, "--format", "json"]).stderr).toContain("plugins.lock was updated");
  });

  it("compiles a changed plugin before the call and says the lock was updated", () => {
    // The descriptor and defineTool() must agree (the drift check), so both change.
    for (const file of ["index.ts", "echo.ts"]) {
      const at = path.join(root, "plugins/example/ai.assemblyline", file);
      fs.writeFileSync(at, fs.readFileSync(at, "utf8").replace("Echo a message back to the caller.", "Echo a message back, unchanged."));
    }
    const run = runCli(["tools", root, "--format", "json"]);
    expect(run.status).toBe(0);
    expect(run.stderr).toContain("plugins.lock was updated");
    // Says why, and what to do (new-user trial M23: "compiled . first" was cryptic).
    expect(run.stderr).toContain(`${path.join(root, "plugins.lock")} did not match the agent (${root}): the agent changed since its last compile, or the lock was edited. The agent was compiled first`);
    expect(run.stderr).toContain(`git diff ${path.join(root, "plugins.lock")}`);
    const echo = (JSON.parse(run.stdout) as { tools: { name: string; description: string }[] }).tools.find((tool) => tool.name === "echo");
    expect(echo?.description).toBe("Echo a message back, unchanged.");
    expect(fs.readFileSync(path.join(root, "plugins.lock"), "utf8")).toContain("Echo a message back, unchanged.");
  });
});
