/**
 * Run and tool-call ids (DESIGN §7 `--run ID`, `--call ID`). A run id names a directory under
 * `.assemblyline/runs/`, so both kinds are restricted to a portable, path-safe alphabet.
 */
import { randomBytes } from "node:crypto";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { runtimeError } from "../errors.js";

const ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/**
 * This process's part of every id it generates: 96 random bits (24 hex digits), drawn once.
 * Two processes share it with probability about n² / 2⁹⁷ for n processes ever, so an id is as
 * fresh as a random UUID's 122 bits make one (issue 14 item 2).
 */
const PROCESS_PART = randomBytes(12).toString("hex");
/** Ids this process has generated; 12 hex digits in the id, so they sort in generation order. */
let generated = 0;

/**
 * A fresh id such as `run_1f0c…` or `call_9a2e…`: `<kind>_`, this process's 24 random hex
 * digits ({@link PROCESS_PART}), then a 12-hex-digit count of the ids it generated. Unique
 * across processes like a random UUID, and increasing within one process, so the calls of a
 * run that take generated ids are appended to the end of `state.db`'s `(run_id, call_id)`
 * index instead of being inserted at random places in it (fewer pages written per commit,
 * fewer page splits; issue 14 item 2). (Past 2⁴⁸ ids the count only grows a digit: still unique.)
 */
export function newId(kind: "run" | "call"): string {
  generated += 1;
  return `${kind}_${PROCESS_PART}${generated.toString(16).padStart(12, "0")}`;
}

/** True when `id` is 1–128 of `[A-Za-z0-9._-]`, starting alphanumeric, without `..` (what {@link checkId} accepts). */
export function isValidId(id: unknown): id is string {
  return typeof id === "string" && ID.test(id) && !id.includes("..");
}

/** Throws `RuntimeError` AL8022 unless `id` is 1–128 of `[A-Za-z0-9._-]`, starting alphanumeric. */
export function checkId(id: unknown, kind: "run" | "call"): string {
  if (!isValidId(id)) {
    throw runtimeError(Diagnostics.InvalidRunId, "", [String(id), kind]);
  }
  return id;
}
