/**
 * Part of `npm run build`: tsc does not emit hand-written `.d.ts` inputs, so the ambient asset
 * declarations of the authoring API are copied next to its compiled output.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const from = path.join(repo, "runtime-min", "authoring", "assets.d.ts");
const to = path.join(repo, "dist", "runtime-min", "authoring", "assets.d.ts");
fs.mkdirSync(path.dirname(to), { recursive: true });
fs.copyFileSync(from, to);
