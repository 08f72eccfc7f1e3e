/**
 * Writes the ajv validators of the toolchain's fixed schemas as JavaScript (ajv's standalone
 * code) to `dist/contract/precompiled/<name>.cjs`, so a compile loads them instead of compiling
 * the schemas on every run (issue 14 item 1; `contract/precompiled-validators.ts`). Part of
 * `npm run build`, after the JavaScript of `dist/` (`build-dist.mjs`): it uses the built modules, so the ajv setup is the one the
 * toolchain runs with. A module whose fingerprint no longer matches is ignored at run time.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const load = (file) => import(pathToFileURL(path.join(root, "dist", file)).href);

const { precompiledSource } = await load("contract/precompiled-validators.js");
const { officialSchemaSpec } = await load("compiler/plugin-package/official-schemas.js");
const { ENTRY_SCHEMA_SPEC } = await load("compiler/validation/entry-shape.js");
const { LOCKFILE_SCHEMA_SPEC } = await load("lockfile/lockfile-schema.js");

const out = path.join(root, "dist/contract/precompiled");
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });
for (const spec of [officialSchemaSpec(), ENTRY_SCHEMA_SPEC, LOCKFILE_SCHEMA_SPEC]) {
  fs.writeFileSync(path.join(out, `${spec.name}.cjs`), await precompiledSource(spec));
}
