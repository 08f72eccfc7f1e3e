/**
 * The Agent Skills front matter rules a discovered skill must satisfy (Agent Plugins v1 §7.1
 * delegates the SKILL.md format to the Agent Skills specification).
 *
 * | field           | rule (Agent Skills)                                                    | when broken |
 * |-----------------|------------------------------------------------------------------------|-------------|
 * | `name`          | required; 1-64 chars; lowercase Unicode letters, digits, `-`; no leading, trailing or double `-`; equals the directory name | skip |
 * | `description`   | required; 1-1024 chars, not blank                                       | skip |
 * | `compatibility` | optional; 1-500 chars                                                   | skip |
 * | `license`       | optional string                                                         | warn, ignore |
 * | `metadata`      | optional map of string keys to string values                            | warn, ignore |
 * | `allowed-tools` | optional, experimental: a space-separated string or a list of strings   | warn, ignore |
 * | anything else   | not defined by Agent Skills                                             | warn, ignore |
 *
 * Names are compared after NFKC normalization (as the reference validator `skills-ref` does),
 * so `café` written in NFD on macOS still matches its directory. Lengths count code points.
 * `license`, `metadata` and `allowed-tools` are not interpreted by Assembly Line; the spec marks
 * `allowed-tools` experimental ("support may vary between agent implementations"), so a
 * malformed value is reported and ignored rather than dropping an otherwise valid skill (corpus
 * `doctor__skill-allowed-tools-number` loads the skill).
 */
import { createDiagnostic, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { didYouMeanHint } from "../../common/did-you-mean.js";
import { describeKind } from "../../diagnostics/json-kinds.js";
import { codePointLength, joinPhrases, listCharacters } from "./json-kinds.js";
import type { FrontMatterField } from "./skill-front-matter.js";
import type { SourceLocation } from "../../diagnostics/diagnostic.js";

/** Front matter fields defined by the Agent Skills specification. */
export const SKILL_FIELDS: readonly string[] = ["name", "description", "license", "compatibility", "metadata", "allowed-tools"];

export const MAX_SKILL_NAME_LENGTH = 64;
export const MAX_SKILL_DESCRIPTION_LENGTH = 1024;
export const MAX_SKILL_COMPATIBILITY_LENGTH = 500;

/** Result of {@link checkSkillFields}: `name`/`description` are set only when the skill loads. */
export interface SkillCheck {
  readonly name: string | undefined;
  readonly description: string | undefined;
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * Checks the front matter `fields` of the skill in skills/`directory`/ (errors skip the skill;
 * warnings do not). `at` is where to report a missing field (the opening `---`).
 */
export function checkSkillFields(directory: string, fields: readonly FrontMatterField[], at: SourceLocation): SkillCheck {
  const byKey = new Map(fields.map((field) => [field.key, field]));
  const diagnostics: Diagnostic[] = [];
  for (const field of fields) {
    if (!SKILL_FIELDS.includes(field.key)) diagnostics.push(unknownField(directory, field));
  }
  const name = checkName(directory, byKey.get("name"), at, diagnostics);
  const description = checkDescription(directory, byKey.get("description"), at, diagnostics);
  checkCompatibility(directory, byKey.get("compatibility"), diagnostics);
  checkOptionalFields(directory, byKey, diagnostics);
  const loads = !diagnostics.some((d) => d.severity === "error");
  return { name: loads ? name : undefined, description: loads ? description : undefined, diagnostics };
}

/**
 * Every Agent Skills name rule `name` breaks, in words; empty when valid. `name` should already
 * be NFKC-normalized.
 */
export function skillNameProblems(name: string): string[] {
  if (name === "") return ["it is empty"];
  const problems: string[] = [];
  const length = codePointLength(name);
  if (length > MAX_SKILL_NAME_LENGTH) problems.push(`it is ${length} characters long (at most ${MAX_SKILL_NAME_LENGTH})`);
  const characters = [...name];
  const uppercase = characters.filter((ch) => ch !== ch.toLowerCase());
  if (uppercase.length > 0) problems.push(`it contains uppercase letters (${listCharacters(uppercase)})`);
  const invalid = characters.filter((ch) => !/^[\p{L}\p{N}-]$/u.test(ch));
  if (invalid.length > 0) problems.push(`it contains characters other than letters, digits and '-' (${listCharacters(invalid)})`);
  if (name.startsWith("-")) problems.push("it starts with '-'");
  if (name.endsWith("-") && name.length > 1) problems.push("it ends with '-'");
  if (name.includes("--")) problems.push("it contains '--'");
  return problems;
}

function checkName(directory: string, field: FrontMatterField | undefined, at: SourceLocation, diagnostics: Diagnostic[]): string | undefined {
  if (!field) {
    diagnostics.push(createDiagnostic(Diagnostics.SkillRequiredFieldMissing, at, [directory, "name"], { hint: `Add 'name: ${directory}'.` }));
    return undefined;
  }
  if (typeof field.value !== "string") {
    diagnostics.push(wrongType(directory, field, "a string"));
    return undefined;
  }
  const normalized = field.value.normalize("NFKC");
  const problems = skillNameProblems(normalized);
  if (problems.length > 0) {
    const hint = "Skill names are 1-64 lowercase letters, digits and hyphens, without leading, trailing or consecutive hyphens, and equal to the directory name.";
    diagnostics.push(createDiagnostic(Diagnostics.SkillNameInvalid, field.valueLocation, [directory, field.value, joinPhrases(problems)], { path: "name", hint }));
  }
  if (normalized !== directory.normalize("NFKC")) {
    diagnostics.push(createDiagnostic(Diagnostics.SkillNameDirectoryMismatch, field.valueLocation, [directory, field.value], { path: "name" }));
  }
  return normalized;
}

function checkDescription(directory: string, field: FrontMatterField | undefined, at: SourceLocation, diagnostics: Diagnostic[]): string | undefined {
  if (!field) {
    diagnostics.push(
      createDiagnostic(Diagnostics.SkillRequiredFieldMissing, at, [directory, "description"], {
        hint: "Add 'description:' saying what the skill does and when to use it.",
      }),
    );
    return undefined;
  }
  if (typeof field.value !== "string") {
    diagnostics.push(wrongType(directory, field, "a string"));
    return undefined;
  }
  const length = codePointLength(field.value);
  const problem =
    field.value.trim() === "" ? "is empty" : length > MAX_SKILL_DESCRIPTION_LENGTH ? `is ${length} characters long (at most ${MAX_SKILL_DESCRIPTION_LENGTH})` : undefined;
  if (problem) {
    diagnostics.push(createDiagnostic(Diagnostics.SkillDescriptionInvalid, field.valueLocation, [directory, problem], { path: "description" }));
    return undefined;
  }
  return field.value;
}

function checkCompatibility(directory: string, field: FrontMatterField | undefined, diagnostics: Diagnostic[]): void {
  if (!field) return;
  const value = field.value;
  const length = typeof value === "string" ? codePointLength(value) : 0;
  const problem =
    typeof value !== "string"
      ? `must be a string, but it is ${describeKind(value)}`
      : value.trim() === ""
        ? "is empty"
        : length > MAX_SKILL_COMPATIBILITY_LENGTH
          ? `is ${length} characters long (at most ${MAX_SKILL_COMPATIBILITY_LENGTH})`
          : undefined;
  if (problem) diagnostics.push(createDiagnostic(Diagnostics.SkillCompatibilityInvalid, field.valueLocation, [directory, problem], { path: "compatibility" }));
}

function checkOptionalFields(directory: string, byKey: ReadonlyMap<string, FrontMatterField>, diagnostics: Diagnostic[]): void {
  const license = byKey.get("license");
  if (license && typeof license.value !== "string") {
    diagnostics.push(optionalInvalid(directory, license, "license", `must be a string, but it is ${describeKind(license.value)}`));
  }
  const metadata = byKey.get("metadata");
  if (metadata) checkMetadata(directory, metadata, diagnostics);
  const allowedTools = byKey.get("allowed-tools");
  if (allowedTools) {
    const value = allowedTools.value;
    const valid = typeof value === "string" || (Array.isArray(value) && value.every((item) => typeof item === "string"));
    if (!valid) {
      const reason = `must be a space-separated string or a list of strings, but it is ${describeKind(value)} (experimental field, not used by Assembly Line)`;
      diagnostics.push(optionalInvalid(directory, allowedTools, "allowed-tools", reason));
    }
  }
}

function checkMetadata(directory: string, field: FrontMatterField, diagnostics: Diagnostic[]): void {
  const value = field.value;
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    diagnostics.push(optionalInvalid(directory, field, "metadata", `must be a mapping of string keys to string values, but it is ${describeKind(value)}`));
    return;
  }
  for (const [key, member] of Object.entries(value as Record<string, unknown>)) {
    if (typeof member === "string") continue;
    const location = field.memberLocations.get(key) ?? field.valueLocation;
    const reason = `must be a string, but it is ${describeKind(member)} (quote the value)`;
    diagnostics.push(createDiagnostic(Diagnostics.SkillOptionalFieldInvalid, location, [directory, `metadata.${key}`, reason], { path: ["metadata", key] }));
  }
}

function unknownField(directory: string, field: FrontMatterField): Diagnostic {
  const hint = didYouMeanHint(field.key, SKILL_FIELDS, { allowed_tools: "allowed-tools", allowedtools: "allowed-tools", tools: "allowed-tools", licence: "license" });
  return createDiagnostic(Diagnostics.SkillUnknownField, field.keyLocation, [directory, field.key], { path: [field.key], ...(hint ? { hint } : {}) });
}

function wrongType(directory: string, field: FrontMatterField, expected: string): Diagnostic {
  return createDiagnostic(Diagnostics.SkillFieldWrongType, field.valueLocation, [directory, field.key, expected, describeKind(field.value)], {
    path: [field.key],
    hint: "Quote the value to make it a string.",
  });
}

function optionalInvalid(directory: string, field: FrontMatterField, name: string, reason: string): Diagnostic {
  return createDiagnostic(Diagnostics.SkillOptionalFieldInvalid, field.valueLocation, [directory, name, reason], { path: [name] });
}
