/**
 * Issue 10 item 2 with the real pre-commit framework (the `pre-commit` executable, e.g. the
 * Debian package; `.ci/run` installs it): this package's `.pre-commit-hooks.yaml`, installed by
 * pre-commit from a Git checkout of this repository at a commit, as `language: node` hooks
 * (pre-commit runs `npm install`, `npm pack` and `npm install -g <tarball>`; it reads the
 * tarball name from `npm pack`'s stdout, which `.npmrc` keeps free of script output).
 *
 * In a temporary Git repository holding an agent:
 * - `assembly-line` (compile --fail-on-change): a commit whose lock is stale is stopped and the
 *   lock is rewritten; staging the new lock lets the commit through;
 * - `assembly-line-check` (compile --check): fails on drift and writes nothing.
 *
 * Installing the hook environment builds this package and installs better-sqlite3 twice (npm
 * install in the clone, then the global install of the tarball). better-sqlite3 downloads a
 * prebuilt binary from GitHub, which this test does not reach; without one it compiles from
 * source (minutes each time). So the test hands it, through prebuild-install's documented
 * `local-prebuilds` setting, the binary this checkout's `npm ci` already has, packed under the
 * name prebuild-install looks for; a version mismatch only falls back to compiling.
 *
 * The test fails (never skips) when pre-commit is missing. npm installs the hook repository's
 * dependencies preferring its local cache (`prefer-offline`), so a machine that has run
 * `npm ci` here needs the registry only for what the cache lacks.
 */
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { copyAgent } from "../helpers/copy-agent.js";
import { supportAgentRoot } from "../helpers/support-agent.js";
import { repoRoot, tempDir } from "../helpers/temp-tree.js";
import { machineExtraCaCerts } from "../setup/machine-env.js";

/** Folders that are build output or machine state, never part of a commit (when Git cannot say). */
const NOT_COMMITTED = new Set(["node_modules", "dist", ".git", ".assemblyline", "coverage"]);

/**
 * Copies what a commit of the checkout at `from` would hold (tracked files and untracked ones
 * Git does not ignore, so uncommitted work is tested too) to `to`.
 */
function copyCheckout(from: string, to: string): void {
  const listed = run("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], from);
  if (listed.status === 0) {
    for (const file of listed.stdout.split("\0").filter((f) => f !== "" && fs.existsSync(path.join(from, f)))) {
      fs.mkdirSync(path.dirname(path.join(to, file)), { recursive: true });
      fs.cpSync(path.join(from, file), path.join(to, file), { verbatimSymlinks: true });
    }
    return;
  }
  fs.cpSync(from, to, { recursive: true, filter: (source) => !NOT_COMMITTED.has(path.basename(source)) });
}

const env: NodeJS.ProcessEnv = {
  ...process.env,
  NO_COLOR: "1",
  FORCE_COLOR: "0",
  GIT_AUTHOR_NAME: "Test",
  GIT_AUTHOR_EMAIL: "test@example.org",
  GIT_COMMITTER_NAME: "Test",
  GIT_COMMITTER_EMAIL: "test@example.org",
  npm_config_prefer_offline: "true",
  npm_config_audit: "false",
  npm_config_fund: "false",
  npm_config_update_notifier: "false",
  // npm may ask the registry (the global install resolves the tarball's dependencies), through
  // whatever certificate authority the machine names; the setup file took it out of process.env.
  ...(machineExtraCaCerts() === undefined ? {} : { NODE_EXTRA_CA_CERTS: machineExtraCaCerts() }),
};

function run(command: string, args: readonly string[], cwd: string): SpawnSyncReturns<string> {
  return spawnSync(command, [...args], { cwd, env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
}

function ok(result: SpawnSyncReturns<string>, what: string): string {
  if (result.error) throw new Error(`${what}: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`${what} exited ${result.status}:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

/** Every file under `dir` except `.git/` → sha256 (what "writes nothing" compares). */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const file = path.join(entry.parentPath, entry.name);
    const key = path.relative(dir, file);
    if (key === ".git" || key.startsWith(`.git${path.sep}`)) continue;
    out[key] = entry.isFile() ? crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex") : entry.isDirectory() ? "dir" : "other";
  }
  return out;
}

let user: string;
const echo = () => path.join(user, "agent", "plugins", "example", "ai.assemblyline", "echo.ts");
const commits = () => ok(run("git", ["rev-list", "--count", "HEAD"], user), "git rev-list").trim();

/**
 * A prebuild-install "local prebuild" of this checkout's better-sqlite3 binary
 * (`<name>-v<version>-node-v<abi>-<platform>-<arch>.tar.gz` holding `build/Release/*.node`),
 * so the hook environment's installs extract it instead of compiling from source.
 */
function offerLocalBetterSqlitePrebuild(): void {
  const packageDir = path.join(repoRoot, "node_modules", "better-sqlite3");
  const binary = path.join(packageDir, "build", "Release", "better_sqlite3.node");
  if (!fs.existsSync(binary)) return;
  const { version } = JSON.parse(fs.readFileSync(path.join(packageDir, "package.json"), "utf8")) as { version: string };
  const prebuilds = tempDir("al-prebuilds-");
  const staging = tempDir("al-prebuild-staging-");
  fs.mkdirSync(path.join(staging, "build", "Release"), { recursive: true });
  fs.copyFileSync(binary, path.join(staging, "build", "Release", "better_sqlite3.node"));
  const tarball = path.join(prebuilds, `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`);
  ok(run("tar", ["-czf", tarball, "-C", staging, "build"], staging), "tar the local prebuild");
  env["npm_config_better_sqlite3_local_prebuilds"] = prebuilds;
}

beforeAll(() => {
  offerLocalBetterSqlitePrebuild();
  const version = run("pre-commit", ["--version"], repoRoot);
  if (version.error || version.status !== 0) {
    throw new Error("The pre-commit executable is required by this test (Debian/Ubuntu: apt-get install -y pre-commit; or pipx install pre-commit).");
  }
  // This package as pre-commit sees it: a Git repository of the checkout's files, at a commit.
  const hooks = path.join(tempDir("al-hook-repo-"), "assembly-line");
  copyCheckout(repoRoot, hooks);
  ok(run("git", ["init", "-q"], hooks), "git init");
  ok(run("git", ["add", "-A"], hooks), "git add");
  ok(run("git", ["commit", "-qm", "hooks"], hooks), "git commit");
  const rev = ok(run("git", ["rev-parse", "HEAD"], hooks), "git rev-parse").trim();

  // The user's repository: an agent with an up-to-date lock, both hooks configured.
  user = path.join(tempDir("al-hook-user-"), "repo");
  fs.mkdirSync(user);
  fs.cpSync(copyAgent(supportAgentRoot), path.join(user, "agent"), { recursive: true });
  fs.writeFileSync(
    path.join(user, ".pre-commit-config.yaml"),
    [
      "repos:",
      `  - repo: ${JSON.stringify(hooks)}`,
      `    rev: ${rev}`,
      "    hooks:",
      "      - id: assembly-line",
      "        args: [agent]",
      "        language_version: system",
      "      - id: assembly-line-check",
      "        args: [agent]",
      "        language_version: system",
      "        stages: [manual]",
      "",
    ].join("\n"),
  );
  env.PRE_COMMIT_HOME = tempDir("al-pre-commit-home-");
  ok(run("git", ["init", "-q"], user), "git init");
  ok(run("pre-commit", ["install"], user), "pre-commit install");
  ok(run("pre-commit", ["install-hooks"], user), "pre-commit install-hooks (npm install, npm pack, npm install -g)");
  ok(run("git", ["add", "-A"], user), "git add");
  ok(run("git", ["commit", "-qm", "agent"], user), "the first commit (lock up to date)");
}, 2_400_000);

describe("pre-commit hooks (real pre-commit)", () => {
  it("the first commit went through: the lock was up to date, the artifact is ignored", () => {
    expect(commits()).toBe("1");
    expect(fs.existsSync(path.join(user, "agent", ".assemblyline", "build", "manifest.json"))).toBe(true);
    expect(ok(run("git", ["status", "--porcelain", "--untracked-files=all"], user), "git status")).toBe("");
  });

  it("assembly-line stops a commit whose lock is stale; staging the new lock lets it through", () => {
    fs.appendFileSync(echo(), "// A change to the tool: the plugin's integrity and the lock change.\n");
    ok(run("git", ["add", "agent/plugins/example/ai.assemblyline/echo.ts"], user), "git add");
    const stopped = run("git", ["commit", "-m", "change echo"], user);
    expect(stopped.status, stopped.stdout + stopped.stderr).not.toBe(0);
    expect(stopped.stdout + stopped.stderr).toContain("AL6014");
    expect(commits()).toBe("1");
    // The hook rewrote the lock; it is the only unstaged change.
    expect(ok(run("git", ["diff", "--name-only"], user), "git diff").trim()).toBe("agent/plugins.lock");

    ok(run("git", ["add", "agent/plugins.lock"], user), "git add plugins.lock");
    const through = run("git", ["commit", "-m", "change echo"], user);
    expect(through.status, through.stdout + through.stderr).toBe(0);
    expect(commits()).toBe("2");
    expect(ok(run("git", ["status", "--porcelain", "--untracked-files=all"], user), "git status")).toBe("");
  }, 600_000);

  it("assembly-line-check fails on drift and writes nothing", () => {
    const clean = run("pre-commit", ["run", "assembly-line-check", "--hook-stage", "manual", "--all-files"], user);
    expect(clean.status, clean.stdout + clean.stderr).toBe(0);

    fs.appendFileSync(echo(), "// Another change, not compiled.\n");
    ok(run("git", ["add", "-A"], user), "git add");
    const before = snapshot(user);
    const drift = run("pre-commit", ["run", "assembly-line-check", "--hook-stage", "manual", "--all-files"], user);
    expect(drift.status).toBe(1);
    expect(drift.stdout + drift.stderr).toContain("AL6002");
    expect(snapshot(user)).toEqual(before);
    expect(ok(run("git", ["diff", "--name-only"], user), "git diff")).toBe("");
  }, 600_000);
});
