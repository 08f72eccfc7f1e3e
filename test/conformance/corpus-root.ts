/**
 * Where the conformance suite finds the external corpus: `$ASSEMBLY_LINE_CORPUS` when set, else
 * `../shared/corpus` beside the repository. Only `npm run test:conformance` reads it; `npm test`
 * never reads outside the repository.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { repoRoot } from "../helpers/temp-tree.js";

/** Absolute path of the corpus folder (holds `agent-plugins/` and `tool-schemas/`), read in place and never copied. */
export const corpusRoot = path.resolve(process.env.ASSEMBLY_LINE_CORPUS ?? path.join(repoRoot, "..", "shared", "corpus"));

if (!fs.existsSync(corpusRoot)) {
  throw new Error(`The conformance corpus is not at ${corpusRoot}: set ASSEMBLY_LINE_CORPUS to its folder (the one holding agent-plugins/ and tool-schemas/).`);
}
