/**
 * The link guard of a sandbox process: what its mount namespace looks like before Node starts
 * (`./process-isolation.ts` launches it); and the hiding of a shell command (below).
 *
 * - **No symbolic link in the workspace is followed**: the workspace is bind-mounted
 *   `nosymfollow` (and `nosuid`, `nodev`) in the child's mount namespace (review of 5 December,
 *   F0; helper-89's review, finding 1).
 * - **No Unix socket of the host is in reach by path**: an empty tmpfs covers each folder where
 *   host sockets live ({@link hiddenSocketDirs}), and the paths the process needs that lie in
 *   one of them (its workspace, bridge folder and bundle, the certificates the host names, the
 *   resolver's configuration) are put back at their paths (helper-89's review, finding 2).
 *
 * All of it is one mount table ({@link linkGuardTable}) that one `mount -a -T <table>` process
 * mounts in order ({@link LINK_GUARD_SCRIPT}): a `mount` or `mkdir` process per path cost a
 * whole `call echo` about 67 ms (docs/performance.md, "Twenty-third round"). A table cannot
 * `--move` a mount nor make a file, so the kept paths are bind-mounted from a staging tmpfs that
 * an empty one covers at the end, and a kept file gets its mount point from a read-only
 * skeleton folder the host writes beside the table.
 *
 * Shell commands (`./shell-isolation.ts`) hide with the same table and rules: one job, one
 * mechanism. Their launch differs only in what {@link LinkGuardProfile} names: the agent root
 * and the host user's homes hidden too ({@link LinkGuardPaths.hide}, {@link hostHomeFolders},
 * keeping the `PATH` folders inside: {@link pathFoldersInside}), `/etc`'s root-only files
 * covered ({@link LinkGuardPaths.cover}, {@link HOST_SECRET_FILES}), every cover and kept path read-only, the
 * workspace writable and following links (the shell's own namespace makes them harmless), the
 * table's folder read while mounting but never visible, and a `/proc` of the command's PID
 * namespace mounted last ({@link SHELL_COMMAND_GUARD}).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

/** The paths of a launch's link guard. All absolute. */
export interface LinkGuardPaths {
  /** The child's workspace, a real path: mounted `nosymfollow,nosuid,nodev`; the child starts in it. */
  readonly workspace: string;
  /** Other paths the child needs (bridge folder, bundle, certificates…), kept visible at their paths. */
  readonly keep: readonly string[];
  /**
   * A fresh folder of the host's, private to it (mode 0700), where the table and the skeleton
   * folders are written (`.link-guard/`); kept visible, since `mount` reads the table and the
   * skeletons from it. The bridge folder for a sandbox process, the probe's folder for the probe.
   */
  readonly tableDir: string;
  /**
   * Folders hidden besides the socket folders, and never left visible: the launch fails
   * (throws) when one cannot be hidden. A shell command's agent root (with its state directory)
   * and the host user's home folders ({@link hostHomeFolders}).
   */
  readonly hide?: readonly string[];
  /**
   * Files and folders covered, where they exist outside every hidden folder, by an empty
   * read-only file or tmpfs before anything else is mounted: a shell command's
   * {@link HOST_SECRET_FILES}. Absent: none.
   */
  readonly cover?: readonly string[];
}

/**
 * How a launch's table mounts what it hides and keeps: what differs between the sandbox process
 * ({@link SANDBOX_PROCESS_GUARD}) and a shell command ({@link SHELL_COMMAND_GUARD}).
 */
export interface LinkGuardProfile {
  /** The workspace's mount options besides `bind`. */
  readonly workspaceOptions: string;
  /**
   * True for a launch whose mounts are all read-only but the workspace (a shell command, whose
   * setup remounts the host's read-only before the table): every cover is read-only (one that
   * holds a kept path is sealed by a read-only recursive bind onto itself once its paths are
   * back), and so is every kept path but the workspace.
   */
  readonly readOnly: boolean;
  /**
   * True: the table's folder is kept visible (the sandbox process's bridge folder); false: it is
   * only read while mounting (staged when it lies in a hidden folder), never seen afterwards.
   */
  readonly keepTableDir: boolean;
  /** True: a `/proc` of the launch's PID namespace is mounted last (a launch under `unshare --pid` without `--mount-proc`). */
  readonly mountProc: boolean;
}

/** A sandbox process: its workspace follows no link (`nosymfollow`, review of 5 December, F0); its bridge folder (the table's) stays writable. */
export const SANDBOX_PROCESS_GUARD: LinkGuardProfile = { workspaceOptions: "nosymfollow,nosuid,nodev", readOnly: false, keepTableDir: true, mountProc: false };

/** A shell command (`./shell-isolation.ts`): everything read-only but the workspace, the table never visible, its own `/proc`. */
export const SHELL_COMMAND_GUARD: LinkGuardProfile = { workspaceOptions: "rw,nosuid,nodev", readOnly: true, keepTableDir: false, mountProc: true };

/** A path the link guard keeps visible inside a hidden folder. */
export interface KeptPath {
  /** The real path. */
  readonly path: string;
  /** True for a folder, false for any other file (a bundle, a certificate file). */
  readonly isFolder: boolean;
}

/** What the link guard hides and keeps: the folders it covers, the paths inside them it keeps, and where it stages them. */
export interface SocketHiding {
  /** The hidden folder whose tmpfs holds the kept paths meanwhile (`""` when none is kept). */
  readonly stage: string;
  /** The paths to keep that lie in a hidden folder, none inside another, sorted. */
  readonly kept: readonly KeptPath[];
  /** The folders covered by an empty tmpfs. */
  readonly hidden: readonly string[];
  /**
   * Folders read while mounting but not kept (a shell command's table folder), that lie in a
   * hidden folder: staged beside the kept paths when the skeleton is read, never put back.
   * Absent: none.
   */
  readonly reached?: readonly string[];
  /** Files and folders covered by an empty read-only file or tmpfs (`LinkGuardPaths.cover` that exist), sorted. Absent: none. */
  readonly covered?: readonly KeptPath[];
}

/** The mount table of a launch and the skeleton it needs (paths relative to `<tableDir>/.link-guard/skeleton`). */
export interface LinkGuardTable {
  /** The table, in fstab(5)'s format, mounted in order by `mount -a -T`. */
  readonly text: string;
  /** Folders to make in the skeleton (absolute paths mirrored under it), outer ones first. */
  readonly skeletonFolders: readonly string[];
  /** Empty files to make in the skeleton: the mount points of kept files. */
  readonly skeletonFiles: readonly string[];
  /** True when the table bind-mounts {@link EMPTY_COVER_FILE} (a covered file): the host writes it beside the table. */
  readonly coversFiles: boolean;
}

/** The empty file, relative to `<tableDir>/.link-guard/`, that a covered file is bind-mounted from (read while mounting only). */
export const EMPTY_COVER_FILE = "empty";

/**
 * The link guard (`/bin/sh -c SCRIPT link-guard <mount> <table> <workspace> <data KiB>
 * <program> <args...>`), run inside the child's user and mount namespaces before the program:
 * mounts the table ({@link linkGuardTable}) in one `mount -a` process, enters the workspace
 * again (the working directory the process was spawned in is the folder under the new mounts,
 * where relative paths would still follow links), sets the program's data size (`RLIMIT_DATA`,
 * soft and hard, when `<data KiB>` is not empty: `ulimit -d`, a builtin where `prlimit` would be
 * a process more), and `exec`s the program with the environment it was given (the shell's
 * `PWD` and `OLDPWD` unset). A failure stops the launch (exit 125; the call
 * reports a sandbox start failure): the child never runs unguarded.
 */
export const LINK_GUARD_SCRIPT = `"$1" -n -a -T "$2" || exit 125
cd -- "$3" || exit 125
[ -z "$4" ] || ulimit -d "$4" || exit 125
shift 4
unset PWD OLDPWD
exec "$@"`;

/**
 * Writes the link guard's table for `paths` into `<tableDir>/.link-guard/` (with the skeleton
 * it needs) and returns the table's path, for {@link LINK_GUARD_SCRIPT} (or the shell's setup,
 * with {@link SHELL_COMMAND_GUARD}). `programs` are the executables of the launch (a folder
 * holding one is not hidden). Throws what `mkdir` and `writeFile` throw (the table is made with
 * `O_EXCL`: never through a link), and when a folder of `paths.hide` cannot be hidden.
 */
export function writeLinkGuardTable(paths: LinkGuardPaths, programs: readonly string[], env: NodeJS.ProcessEnv = process.env, profile: LinkGuardProfile = SANDBOX_PROCESS_GUARD): string {
  const kept = [paths.workspace, ...(profile.keepTableDir ? [paths.tableDir] : []), ...paths.keep];
  const hiding = socketHiding(kept, programs, env, { hide: paths.hide ?? [], reach: profile.keepTableDir ? [] : [paths.tableDir], cover: paths.cover ?? [] });
  const guardDir = path.join(paths.tableDir, ".link-guard");
  const skeleton = path.join(guardDir, "skeleton");
  const table = linkGuardTable(hiding, paths.workspace, paths.tableDir, profile);
  fs.mkdirSync(guardDir, { mode: 0o700 });
  for (const folder of table.skeletonFolders) fs.mkdirSync(skeleton + folder, { recursive: true, mode: 0o755 });
  for (const file of table.skeletonFiles) fs.writeFileSync(skeleton + file, "", { flag: "wx", mode: 0o644 });
  if (table.coversFiles) fs.writeFileSync(path.join(guardDir, EMPTY_COVER_FILE), "", { flag: "wx", mode: 0o444 });
  const tablePath = path.join(guardDir, "fstab");
  fs.writeFileSync(tablePath, table.text, { flag: "wx", mode: 0o600 });
  return tablePath;
}

/** The resolver's configuration, often a link into `/run` (systemd-resolved's `stub-resolv.conf`), which a launch under the host's network keeps. */
export const RESOLVER_CONFIGURATION = "/etc/resolv.conf";

/** The environment variables of the sandbox's allowlist that name certificate files or folders, kept visible. */
const CERTIFICATE_VARIABLES = ["NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "SSL_CERT_DIR"];

/**
 * What every guarded launch (a sandbox process, a shell command) keeps visible besides its own
 * paths: the certificate files or folders `env` names to Node and OpenSSL (absolute values of
 * `NODE_EXTRA_CA_CERTS`, `SSL_CERT_FILE`, `SSL_CERT_DIR`: they may lie in `/tmp`), and under
 * the host's network the resolver's configuration (`resolver`, {@link RESOLVER_CONFIGURATION}
 * unless a test names another), wherever it lies: hiding `/run` must not break DNS. Pure.
 */
export function launchKeptPaths(network: "host" | "none", env: NodeJS.ProcessEnv = process.env, resolver: string = RESOLVER_CONFIGURATION): string[] {
  const certificates = CERTIFICATE_VARIABLES.map((name) => env[name]).filter((value): value is string => value !== undefined && path.isAbsolute(value));
  return [...certificates, ...(network === "host" ? [resolver] : [])];
}

/**
 * Files and folders of `/etc` that only root may read, which a shell command never reads: when
 * the host runs as root, the command is root in its namespaces, mapped to the host's root, and
 * read them (new-user trial 112, C4). Each that exists is covered by an empty read-only file
 * (a folder by an empty read-only tmpfs) before the rest of the table is mounted; the rest of
 * `/etc` stays readable (`passwd`, `resolv.conf`, `ssl/` are needed). The one list.
 */
export const HOST_SECRET_FILES: readonly string[] = [
  "/etc/shadow",
  "/etc/shadow-",
  "/etc/gshadow",
  "/etc/gshadow-",
  "/etc/sudoers",
  "/etc/sudoers.d",
  "/etc/security/opasswd",
  "/etc/ssh/ssh_host_dsa_key",
  "/etc/ssh/ssh_host_ecdsa_key",
  "/etc/ssh/ssh_host_ed25519_key",
  "/etc/ssh/ssh_host_rsa_key",
];

/**
 * The host user's home folders, which a shell command never sees (new-user trial 112, C4:
 * `~/.ssh`, `~/.npmrc`, `~/.aws`): `env.HOME` when absolute (else `os.homedir()`, from the
 * password database) and `/root` when it is another folder — real paths of those that exist,
 * other than `/`, each once, sorted. The command's own `HOME` is its workspace
 * (`./sandbox-environment.ts`), so it needs none of them. Never throws.
 */
export function hostHomeFolders(env: NodeJS.ProcessEnv = process.env): string[] {
  let home = env.HOME;
  if (home === undefined || !path.isAbsolute(home)) {
    try {
      home = os.userInfo().homedir;
    } catch {
      home = undefined;
    }
  }
  return existingRealFolders([...(home === undefined ? [] : [home]), "/root"], {}).sort();
}

/**
 * The folders of `env.PATH` (absolute entries; the sandbox passes the host's `PATH` on) that
 * lie strictly inside one of `folders` (hidden folders: the host's home, the agent root), so a
 * command still runs `node` from nvm's `~/.nvm/versions/node/<v>/bin` or a program of
 * `~/.local/bin` while the rest of the home stays hidden. An entry equal to a hidden folder is
 * not kept (the whole home on `PATH` would show it all), nor one inside `exclude` (the state
 * directory). Duplicates once, in `PATH`'s order; never throws.
 */
export function pathFoldersInside(folders: readonly string[], exclude: readonly string[], env: NodeJS.ProcessEnv = process.env): string[] {
  const entries = (env.PATH ?? "").split(":").filter((entry) => path.isAbsolute(entry)).map(realOrSame);
  const inside = (outer: readonly string[], entry: string): boolean => outer.some((dir) => entry === dir || within(dir, entry));
  // By real path, as the hidden folders are named: `~/bin` through a linked home is kept too.
  return [...new Set(entries)].filter((entry) => folders.some((dir) => within(dir, entry)) && !inside(exclude, entry));
}

/** The tmpfs sources of the table: each role its own, since `mount -a` skips an entry whose source is already mounted at its target. */
const STAGE_SOURCE = "assembly-line-stage";
const HIDDEN_SOURCE = "assembly-line-hidden";
const COVER_SOURCE = "assembly-line-cover";
/** The source of the empty tmpfs over a covered folder of root-only secrets (`/etc/sudoers.d`). */
const SECRET_SOURCE = "assembly-line-secret";
/** The source of a shell command's own `/proc` (not `proc`, which is mounted at `/proc` already). */
const PROC_SOURCE = "assembly-line-proc";
const TMPFS_OPTIONS = "mode=0755,nosuid,nodev";

/**
 * The mount table that hides `hiding.hidden` and keeps `hiding.kept` ({@link socketHiding}),
 * and guards `workspace`; the skeleton is read from `<tableDir>/.link-guard/skeleton`. In order:
 *
 * 0. each covered path (`hiding.covered`): a folder under an empty read-only tmpfs, a file under
 *    an empty read-only file (`<tableDir>/.link-guard/empty`, read before anything hides it);
 * 1. a tmpfs over the stage, and each kept folder (for a kept file: its folder; then, when a
 *    skeleton is read, each of `hiding.reached`) bind-mounted into it (`<stage>/<n>`);
 * 2. an empty tmpfs over each other hidden folder (read-only under `profile.readOnly` when it
 *    holds no kept path);
 * 3. for kept files, the skeleton of their outermost folders, read-only, at those folders' paths
 *    (it holds an empty file where each kept file goes, and a folder where each kept folder
 *    inside goes);
 * 4. each kept folder bind-mounted back from the stage (`X-mount.mkdir` makes its mount point;
 *    the workspace's mount with `profile.workspaceOptions`), then each kept file (both
 *    read-only under `profile.readOnly`, but the workspace);
 * 5. an empty tmpfs over the stage, which hid nothing else;
 * 6. the workspace bind-mounted onto itself with `profile.workspaceOptions` where it was not kept;
 * 7. under `profile.readOnly`, each hidden folder that holds a kept path bind-mounted onto
 *    itself recursively, read-only (its tmpfs was written by step 4's `X-mount.mkdir`);
 * 8. with `profile.mountProc`, a `/proc` of the launch's PID namespace.
 *
 * Pure; paths are escaped as fstab(5) requires.
 */
export function linkGuardTable(hiding: SocketHiding, workspace: string, tableDir: string, profile: LinkGuardProfile = SANDBOX_PROCESS_GUARD): LinkGuardTable {
  const lines: string[] = [];
  const mount = (source: string, target: string, type: string, options: string): void => {
    lines.push(`${fstabField(source)} ${fstabField(target)} ${type} ${options} 0 0`);
  };
  const readOnly = (options: string): string => (profile.readOnly ? `${options},ro` : options);
  const folders = hiding.kept.filter((kept) => kept.isFolder).map((kept) => kept.path);
  const files = hiding.kept.filter((kept) => !kept.isFolder).map((kept) => kept.path);
  // The table's folder is read through the stage only for the skeleton, which only kept files need.
  const reached = files.length > 0 ? (hiding.reached ?? []) : [];
  const staged = new Map<string, string>();
  for (const source of [...folders, ...new Set(files.map((file) => path.dirname(file))), ...reached]) if (!staged.has(source)) staged.set(source, `${hiding.stage}/${staged.size + 1}`);
  // Where a path is until the stage is covered: under its staged folder, or where it is.
  const stagedPath = (item: string): string => {
    for (const [source, place] of staged) if (item === source || within(source, item)) return place + item.slice(source.length);
    return item;
  };
  const holdsKept = (dir: string): boolean => hiding.kept.some((kept) => within(dir, kept.path));
  // First, while the table's folder is still at its path: the covers of root-only secrets.
  const covered = hiding.covered ?? [];
  for (const item of covered) {
    if (item.isFolder) mount(SECRET_SOURCE, item.path, "tmpfs", `${TMPFS_OPTIONS},ro`);
    else mount(path.join(tableDir, ".link-guard", EMPTY_COVER_FILE), item.path, "none", "bind,ro,nosuid,nodev");
  }
  if (staged.size > 0) {
    mount(STAGE_SOURCE, hiding.stage, "tmpfs", TMPFS_OPTIONS);
    for (const [source, place] of staged) mount(source, place, "none", "bind,X-mount.mkdir");
  }
  for (const dir of hiding.hidden) if (dir !== hiding.stage) mount(HIDDEN_SOURCE, dir, "tmpfs", holdsKept(dir) ? TMPFS_OPTIONS : readOnly(TMPFS_OPTIONS));
  const parents = [...new Set(files.map((file) => path.dirname(file)))].sort();
  const roots = parents.filter((parent) => !parents.some((other) => other !== parent && within(other, parent)));
  const skeletonFolders: string[] = [];
  for (const root of roots) {
    skeletonFolders.push(...parents.filter((parent) => parent === root || within(root, parent)));
    skeletonFolders.push(...folders.filter((folder) => within(root, folder)));
    mount(stagedPath(path.join(tableDir, ".link-guard", "skeleton") + root), root, "none", "bind,ro,X-mount.mkdir");
  }
  for (const folder of folders) mount(staged.get(folder) as string, folder, "none", folder === workspace ? `bind,${profile.workspaceOptions},X-mount.mkdir` : readOnly("bind,X-mount.mkdir"));
  for (const file of files) mount(stagedPath(file), file, "none", readOnly("bind"));
  if (staged.size > 0) mount(COVER_SOURCE, hiding.stage, "tmpfs", readOnly(TMPFS_OPTIONS));
  if (!folders.includes(workspace)) mount(workspace, workspace, "none", `bind,${profile.workspaceOptions}`);
  if (profile.readOnly) for (const dir of hiding.hidden) if (dir !== hiding.stage && holdsKept(dir)) mount(dir, dir, "none", "rbind,ro,nosuid,nodev");
  if (profile.mountProc) mount(PROC_SOURCE, "/proc", "proc", "nosuid,nodev,noexec");
  return { text: `${lines.join("\n")}\n`, skeletonFolders: [...new Set(skeletonFolders)].sort(), skeletonFiles: files, coversFiles: covered.some((item) => !item.isFolder) };
}

/**
 * `text` as a field of fstab(5): space, tab, newline, backslash and every other control
 * character as a three-digit octal escape (`\040`), which libmount reads back.
 */
export function fstabField(text: string): string {
  return text.replace(/[\u0000-\u0020\\\u007f]/g, (char) => `\\${char.charCodeAt(0).toString(8).padStart(3, "0")}`);
}

/**
 * The folders where the host's Unix sockets live, which a sandbox process and a shell command
 * (under both network policies) never see: `/run`
 * (and `/var/run`), `/tmp`, `/var/tmp`, `/dev/shm` and `$XDG_RUNTIME_DIR` — docker's and the
 * system bus's sockets, the user's session bus and `systemd` manager, ssh and gpg agents, a
 * database's or an X server's socket. Node 20's permission model does not check
 * `net.connect({ path })`, and a network namespace separates only abstract sockets, so without
 * this a tool connected to any socket file the host user may use, under network `"none"` too
 * (helper-89's review, finding 2). Real paths of the folders that exist, without one inside
 * another, nor one holding a program of the launch (`programs`: this Node, `mount`…), by the
 * path it is run by or by its real path.
 */
export function hiddenSocketDirs(programs: readonly string[], env: NodeJS.ProcessEnv = process.env): string[] {
  // The path a program is run by and its real path: either folder hidden would lose it.
  const realPrograms = programs.flatMap((program) => [program, realOrSame(program)]);
  const dirs = existingRealFolders(["/run", "/var/run", "/tmp", "/var/tmp", "/dev/shm"], env);
  return dirs.filter((dir) => !dirs.some((other) => other !== dir && within(other, dir)) && !realPrograms.some((program) => within(dir, program)));
}

/**
 * The real paths of `candidates` and `$XDG_RUNTIME_DIR` (when absolute) that exist as folders
 * other than `/`, in that order, each once: the folders where host sockets live that a sandbox
 * process ({@link hiddenSocketDirs}) or a shell command (`./shell-isolation.ts`) never sees.
 * A missing one has nothing to hide. Never throws.
 */
export function existingRealFolders(candidates: readonly string[], env: NodeJS.ProcessEnv = process.env): string[] {
  const all = env.XDG_RUNTIME_DIR && path.isAbsolute(env.XDG_RUNTIME_DIR) ? [...candidates, env.XDG_RUNTIME_DIR] : candidates;
  const found = new Set<string>();
  for (const candidate of all) {
    try {
      const real = fs.realpathSync(candidate);
      if (real !== "/" && fs.statSync(real).isDirectory()) found.add(real);
    } catch {
      // A missing folder has nothing to hide.
    }
  }
  return [...found];
}

/**
 * What the link guard hides for a launch that needs the paths `paths` (absolute; those that
 * exist are kept, by their real paths, none inside another): {@link hiddenSocketDirs} and the
 * folders of `extra.hide` (a shell command's state directory; none inside another), keeping the
 * paths that lie in one of them, staged in the first hidden folder that holds none of them nor
 * of `extra.reach` (folders read while mounting, not kept: `reached` when they lie in a hidden
 * folder). Where every hidden folder holds one, those holding one are left visible (nothing is
 * staged). Throws only for `extra.hide`: a folder of it that is missing, or that would be left
 * visible; never otherwise.
 */
export function socketHiding(paths: readonly string[], programs: readonly string[], env: NodeJS.ProcessEnv = process.env, extra: { readonly hide?: readonly string[]; readonly reach?: readonly string[]; readonly cover?: readonly string[] } = {}): SocketHiding {
  const socketDirs = hiddenSocketDirs(programs, env);
  const required = (extra.hide ?? []).map((dir) => {
    const real = fs.realpathSync(dir);
    if (!fs.statSync(real).isDirectory()) throw new Error(`${dir} is not a folder, so it cannot be hidden`);
    return real;
  });
  // A folder to hide inside a socket folder is hidden with it; a socket folder inside one, with that one.
  const own = required.filter((dir, index) => !socketDirs.some((other) => other === dir || within(other, dir)) && !required.some((other, at) => (other === dir && at < index) || within(other, dir)));
  let hidden = [...socketDirs.filter((dir) => !own.some((other) => within(other, dir))), ...own];
  const found: KeptPath[] = [];
  for (const item of paths) {
    try {
      const real = fs.realpathSync(item);
      if (!found.some((other) => other.path === real)) found.push({ path: real, isFolder: fs.statSync(real).isDirectory() });
    } catch {
      // A missing path has nothing to keep.
    }
  }
  const reach = (extra.reach ?? []).map(realOrSame);
  const keep = found.filter((item) => !found.some((other) => other.isFolder && within(other.path, item.path))).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const needed = [...keep.map((item) => item.path), ...reach];
  const holdsNeeded = (dir: string): boolean => needed.some((item) => item === dir || within(dir, item) || within(item, dir));
  const stage = hidden.find((dir) => !holdsNeeded(dir));
  if (stage === undefined) hidden = hidden.filter((dir) => !holdsNeeded(dir));
  const unhidden = required.filter((dir) => !hidden.some((other) => other === dir || within(other, dir)));
  if (unhidden.length > 0) throw new Error(`${unhidden.join(", ")} cannot be hidden: every folder to hide holds a path to keep, so none is left to stage them in`);
  const kept = stage === undefined ? [] : keep.filter((item) => hidden.some((dir) => within(dir, item.path)));
  const inHidden = (item: string): boolean => hidden.some((dir) => within(dir, item));
  const reached = kept.length === 0 ? [] : reach.filter((item) => inHidden(item) && !keep.some((other) => other.isFolder && (other.path === item || within(other.path, item))));
  const covered = coveredPaths(extra.cover ?? [], (item) => hidden.some((dir) => dir === item || within(dir, item)) || found.some((other) => other.path === item || within(item, other.path)));
  return { stage: kept.length > 0 && stage !== undefined ? stage : "", kept, hidden, ...(reached.length > 0 ? { reached } : {}), ...(covered.length > 0 ? { covered } : {}) };
}

/**
 * The paths of `cover` that exist, by real path, sorted, without those `skip` names (in a hidden
 * folder: hidden anyway; holding a kept path, which a cover would hide). Never throws.
 */
function coveredPaths(cover: readonly string[], skip: (real: string) => boolean): KeptPath[] {
  const covered: KeptPath[] = [];
  for (const item of cover) {
    try {
      const real = fs.realpathSync(item);
      if (!skip(real) && !covered.some((other) => other.path === real)) covered.push({ path: real, isFolder: fs.statSync(real).isDirectory() });
    } catch {
      // A missing file has nothing to cover.
    }
  }
  return covered.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The real path of `file`, or `file` when it has none (missing). */
function realOrSame(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return file;
  }
}

/** True when `inner` is strictly inside `outer` (both normalized absolute paths). */
function within(outer: string, inner: string): boolean {
  return inner.startsWith(outer.endsWith("/") ? outer : `${outer}/`);
}
