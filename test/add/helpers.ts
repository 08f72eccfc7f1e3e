/** Shared fixtures of the `add` tests. */
import * as path from "node:path";
import { repoRoot } from "../helpers/temp-tree.js";

/** The OpenUI tool pack fixture (a publishable plugin package). */
export const openuiPack = path.join(repoRoot, "test/fixtures/lockfile/packs/openui");
