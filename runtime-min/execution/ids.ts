/**
 * Run and tool-call ids (DESIGN §7 `--run ID`, `--call ID`). A run id names a directory under
 * `.assemblyline/runs/`, so both kinds are restricted to a portable, path-safe alphabet.
 */
import { randomUUID } from "node:crypto";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { runtimeError } from "../errors.js";

const ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** A fresh id such as `run_1f0c…` or `call_9a2e…`. */
export function newId(kind: "run" | "call"): string {
  return `${kind}_${randomUUID().replace(/-/g, "")}`;
}

/** Throws `RuntimeError` AL8022 unless `id` is 1–128 of `[A-Za-z0-9._-]`, starting alphanumeric. */
export function checkId(id: unknown, kind: "run" | "call"): string {
  if (typeof id !== "string" || !ID.test(id) || id.includes("..")) {
    throw runtimeError(Diagnostics.InvalidRunId, "", [String(id), kind]);
  }
  return id;
}
