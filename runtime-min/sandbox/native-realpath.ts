/**
 * Closes an existence oracle in the sandbox child (helper-89's review of 6 December, finding 9):
 * Node 20's JavaScript `fs.realpathSync` lstat's each component of a path through an internal
 * binding that the permission model does not check, so a tool could learn whether any host path
 * exists (`/root/.ssh/id_rsa`: the path back, or ENOENT) while `lstat`, `stat` and `existsSync`
 * are refused. `fs.realpathSync.native` (libuv's `realpath`), `fs.realpath` and
 * `fs.promises.realpath` are checked. The child's entry calls {@link useNativeRealpath} before
 * it imports any bundle, so a tool's `fs.realpathSync` — through `require("node:fs")`, the
 * default import or a named import — is the checked one: a path the tool may read resolves as
 * before (also through symbolic links), any other is refused with `ERR_ACCESS_DENIED`.
 */
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";

/** Makes `fs.realpathSync` the native (permission-checked) one, in CommonJS and ES module views of `node:fs`. */
export function useNativeRealpath(): void {
  const native = fs.realpathSync.native;
  // A function of its own, so that `realpathSync.native` stays the native one.
  const checked = native.bind(fs) as typeof fs.realpathSync;
  checked.native = native;
  fs.realpathSync = checked;
  // Named imports of `node:fs` (`import { realpathSync } from "node:fs"`) follow the change.
  syncBuiltinESMExports();
}
