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
