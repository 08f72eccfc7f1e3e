/**
 * A host whose util-linux `mount` cannot bind-mount `nosymfollow` (before 2.38, as on Ubuntu
 * 22.04 and Debian 11; review of 5 December, N1), through the real binary: the sandbox process
 * keeps its namespaces (`network: "none"` still works), and since it would follow a link a shell
 * command leaves in the workspace, shell commands count as not isolated: AL8031 under "auto"
 * (the host's accepted trade), refused under "required". A `mount` first on PATH that refuses
 * the option stands in for the old one.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { copyAgent } from "../helpers/copy-agent.js";
import { runCli } from "../helpers/run-cli.js";
import { supportAgentRoot } from "../helpers/support-agent.js";
import { tempDir } from "../helpers/temp-tree.js";

const realUnshare = ["/usr/bin/unshare", "/bin/unshare"].find((file) => fs.existsSync(file));
const realMount = ["/usr/bin/mount", "/bin/mount"].find((file) => fs.existsSync(file));

describe.runIf(process.platform === "linux" && realUnshare !== undefined && realMount !== undefined)("without the link guard (util-linux mount before 2.38)", () => {
  it("keeps the sandbox's namespaces and network \"none\", and says shell commands are not isolated (AL8031)", () => {
    const bin = tempDir("al-old-mount-");
    // The probe looks for mount beside unshare first: both here.
    fs.symlinkSync(realUnshare!, path.join(bin, "unshare"));
    // It refuses the option on its command line and in a table it is given (`mount -a -T <table>`: the link guard's).
    fs.writeFileSync(path.join(bin, "mount"), `#!/bin/sh\nfor arg; do case "$arg" in *nosymfollow*) refused=1 ;; esac; [ -f "$arg" ] && grep -q nosymfollow "$arg" && refused=1; done\nif [ -n "$refused" ]; then echo "mount: unknown mount option nosymfollow" >&2; exit 32; fi\nexec ${realMount} "$@"\n`, { mode: 0o755 });
    const env = { PATH: `${bin}${path.delimiter}${process.env.PATH ?? ""}` };
    const root = copyAgent(supportAgentRoot);
    const call = (...extra: string[]) => runCli(["call", "echo", "--input", '{"message":"hi"}', "--format", "json", ...extra], { cwd: root, env });
    const first = call();
    expect(first.status, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ status: "ok", output: { message: "hi" } });
    expect(first.stderr).toContain("AL8031");
    expect(first.stderr).toContain("would follow a symbolic link a command leaves in the workspace");
    expect(first.stderr).not.toContain("AL8060");
    // Nor does the sandbox process's own launch hide the host's socket folders (AL8063).
    expect(first.stderr).toContain("AL8063");
    expect(first.stderr).toContain("connects to every Unix socket the host user may");
    // The namespaces are kept: network "none" is still enforced, not refused (AL8061).
    const offline = call("--network", "none");
    expect(offline.status, offline.stderr).toBe(0);
    expect(offline.stderr).not.toContain("AL8061");
    // Remembered as it is: the next call says the same without probing the guard again.
    const second = call();
    expect(second.status).toBe(0);
    expect(second.stderr).toContain("AL8031");
  }, 120_000);
});
