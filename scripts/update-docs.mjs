/**
 * `npm run docs`: writes the generated documentation, docs/diagnostics.md (every diagnostic code
 * with why it exists and an example), from the built catalog. Run `npm run build` first (the
 * `docs` script does).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { DIAGNOSTICS_DOC_PATH, renderDiagnosticsDoc } = await import(pathToFileURL(path.join(repo, "dist/diagnostics/catalog/docs.js")).href);
const docPath = path.join(repo, DIAGNOSTICS_DOC_PATH);
const next = renderDiagnosticsDoc();
const current = fs.existsSync(docPath) ? fs.readFileSync(docPath, "utf8") : undefined;
if (next !== current) {
  fs.mkdirSync(path.dirname(docPath), { recursive: true });
  fs.writeFileSync(docPath, next);
  console.log(`${DIAGNOSTICS_DOC_PATH}: updated`);
} else console.log(`${DIAGNOSTICS_DOC_PATH}: up to date`);
