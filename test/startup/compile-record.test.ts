/**
 * The compile record (`cli/compile-record.ts`; issue 14 item 4) in process: what makes a record
 * stop holding that the end-to-end test (test/e2e/compile-up-to-date.test.ts) cannot change
 * safely — another toolchain, a damaged or foreign record file, other options — and the
 * artifact check's hash fallback (a touch holds, other bytes do not).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as v8 from "node:v8";
import { beforeEach, describe, expect, it } from "vitest";
import { compileAgent, type CompileOptions } from "../../build/compile.js";
import { COMPILE_RECORD_FILE, COMPILE_RECORD_MAGIC, compileRecorder, compileRecordKey, replayCompile } from "../../cli/compile-record.js";
import { recordingHost } from "../../cli/inputs-record.js";
import { readSealedLog, sealLog } from "../../common/sealed-file.js";
import { statSignature } from "../../common/file-stats-hash.js";
import { newestFileProbe, packProbes, unpackProbes, type PackedProbes } from "../../common/probe.js";
import { copyAgent } from "../helpers/copy-agent.js";
import { repoRoot } from "../helpers/temp-tree.js";
import { rewriteSameSize } from "../helpers/same-size-rewrite.js";

let root: string;
let options: CompileOptions;
const recordFile = (): string => path.join(root, COMPILE_RECORD_FILE);

/** Compiles as `compile` does when it cannot replay, saving the record. */
async function compileRecording(): Promise<void> {
  const recording = recordingHost(root);
  const recorder = compileRecorder(root, recording);
  const result = await compileAgent({ ...options, host: recording.host, recordInput: recorder.recordInput });
  expect(result.ok).toBe(true);
  recorder.save(result, compileRecordKey(options));
}

beforeEach(async () => {
  root = copyAgent(path.join(repoRoot, "examples", "support-agent"));
  options = { root, package: true, cache: true };
  await compileRecording();
  expect(fs.existsSync(recordFile())).toBe(true);
}, 180_000);

describe("the compile record", () => {
  it("holds while nothing changed, with the recorded outcome", () => {
    const outcome = replayCompile(root, compileRecordKey(options));
    expect(outcome).toMatchObject({ lockfile: "plugins.lock", artifact: ".assemblyline/build" });
    expect(outcome!.tools).toBeGreaterThan(0);
  });

  it("does not hold for other options or another working directory", () => {
    expect(replayCompile(root, compileRecordKey({ ...options, package: false }))).toBeUndefined();
    expect(replayCompile(root, compileRecordKey({ ...options, targets: ["openai"] }))).toBeUndefined();
    const cwd = process.cwd();
    try {
      process.chdir(root);
      expect(replayCompile(root, compileRecordKey(options))).toBeUndefined();
    } finally {
      process.chdir(cwd);
    }
  });

  it("does not hold for another toolchain", () => {
    const payload = readSealedLog(recordFile(), COMPILE_RECORD_MAGIC)?.segments[0] as Record<string, unknown>;
    fs.writeFileSync(recordFile(), sealLog(COMPILE_RECORD_MAGIC, { ...payload, toolchain: `${String(payload["toolchain"])}-next` }));
    expect(replayCompile(root, compileRecordKey(options))).toBeUndefined();
    // The same payload sealed again holds: only the toolchain differed.
    fs.writeFileSync(recordFile(), sealLog(COMPILE_RECORD_MAGIC, payload));
    expect(replayCompile(root, compileRecordKey(options))).toBeDefined();
  });

  it("a truncated, altered or foreign record file never holds and never throws", () => {
    const bytes = fs.readFileSync(recordFile());
    for (const damaged of [bytes.subarray(0, bytes.length - 10), Buffer.concat([bytes, Buffer.from("x")]), Buffer.from("assembly-line bundle cache 1\n"), Buffer.alloc(0)]) {
      fs.writeFileSync(recordFile(), damaged);
      expect(replayCompile(root, compileRecordKey(options))).toBeUndefined();
    }
    fs.writeFileSync(recordFile(), sealLog(COMPILE_RECORD_MAGIC, { toolchain: 1 }));
    expect(replayCompile(root, compileRecordKey(options))).toBeUndefined();
    // A record is one segment: a whole second one appended (each sealed) is not a record either.
    fs.writeFileSync(recordFile(), bytes);
    const whole = sealLog(COMPILE_RECORD_MAGIC, readSealedLog(recordFile(), COMPILE_RECORD_MAGIC)!.segments[0]);
    expect(replayCompile(root, compileRecordKey(options))).toBeDefined();
    fs.writeFileSync(recordFile(), Buffer.concat([bytes, whole.subarray(COMPILE_RECORD_MAGIC.length)]));
    expect(readSealedLog(recordFile(), COMPILE_RECORD_MAGIC)?.segments.length).toBe(2);
    expect(replayCompile(root, compileRecordKey(options))).toBeUndefined();
  });

  it("a record whose packed probes are damaged never holds and never throws", () => {
    const record = () => readSealedLog(recordFile(), COMPILE_RECORD_MAGIC)?.segments[0] as Record<string, unknown> & { probes: Uint8Array; newest: PackedProbes };
    const payload = record();
    const packed = v8.deserialize(payload.probes) as PackedProbes;
    expect(unpackProbes(packed)?.length).toBeGreaterThan(0);
    const damagedBodies = [unpackProbes(packed), { ...packed, paths: packed.paths.slice(1) }, { ...packed, stats: [...packed.stats] }, null].map((probes) => v8.serialize(probes));
    const damagedHeads = [unpackProbes(payload.newest), { ...payload.newest, paths: [] }, null, packProbes([...unpackProbes(packed)!.slice(0, 2)])];
    for (const change of [...damagedBodies.map((probes) => ({ probes })), { probes: unpackProbes(packed) }, { probes: Buffer.from("not v8") }, ...damagedHeads.map((newest) => ({ newest }))]) {
      fs.writeFileSync(recordFile(), sealLog(COMPILE_RECORD_MAGIC, { ...payload, ...change }));
      expect(() => replayCompile(root, compileRecordKey(options))).not.toThrow();
      expect(replayCompile(root, compileRecordKey(options))).toBeUndefined();
    }
    // The same payload sealed again holds: only the probes differed.
    fs.writeFileSync(recordFile(), sealLog(COMPILE_RECORD_MAGIC, payload));
    expect(replayCompile(root, compileRecordKey(options))).toBeDefined();
  });

  it("asks the most recently modified file first (before deserializing the rest): a touch of it holds, other bytes do not, and the artifact files are handed on either way", () => {
    const payload = readSealedLog(recordFile(), COMPILE_RECORD_MAGIC)?.segments[0] as Record<string, unknown> & { probes: Uint8Array; newest: PackedProbes };
    const [newest, ...more] = unpackProbes(payload.newest)!;
    expect(more).toEqual([]);
    const all = unpackProbes(v8.deserialize(payload.probes))!;
    expect(newestFileProbe(packProbes(all))).toEqual(newest);
    const files = all.filter((probe) => (probe.op === "read" || probe.op === "bytes") && probe.stat !== undefined);
    expect(Math.max(...files.map((probe) => ("stat" in probe ? probe.stat!.mtimeMs : 0)))).toBe("stat" in newest! ? newest.stat!.mtimeMs : NaN);
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(newest!.path, later, later);
    const known = new Map<string, readonly [string, string]>();
    expect(replayCompile(root, compileRecordKey(options), known)).toBeDefined();
    const artifactFiles = known.size;
    expect(artifactFiles).toBeGreaterThan(0);
    fs.appendFileSync(newest!.path, "\n");
    known.clear();
    expect(replayCompile(root, compileRecordKey(options), known)).toBeUndefined();
    expect(known.size).toBe(artifactFiles);
    // The file asked first is only asked first: without it apart, the rest still finds the change.
    fs.writeFileSync(recordFile(), sealLog(COMPILE_RECORD_MAGIC, { ...payload, newest: packProbes([]) }));
    expect(replayCompile(root, compileRecordKey(options))).toBeUndefined();
    // And another file apart that holds does not vouch for the rest.
    const older = files.find((probe) => probe.path !== newest!.path)!;
    fs.writeFileSync(recordFile(), sealLog(COMPILE_RECORD_MAGIC, { ...payload, newest: packProbes([older]) }));
    expect(replayCompile(root, compileRecordKey(options))).toBeUndefined();
  });

  it("records every artifact file settled, with the signature it has after the compile; a rewrite with the same size and modification time does not hold", () => {
    // The stamp is written after the artifact (twice: the second later than the first), and each
    // file's signature taken once after it (cli/compile-record.ts, artifactEntries).
    const payload = readSealedLog(recordFile(), COMPILE_RECORD_MAGIC)?.segments[0] as { artifact: [string, string, string | null][] };
    expect(payload.artifact.length).toBeGreaterThan(1);
    for (const [file, , signature] of payload.artifact) expect(signature, file).toBe(statSignature(file));
    const bundle = payload.artifact.map(([file]) => file).find((file) => file.endsWith(".mjs"))!;
    const before = fs.statSync(bundle);
    rewriteSameSize(bundle);
    expect(fs.statSync(bundle).size).toBe(before.size);
    expect(replayCompile(root, compileRecordKey(options))).toBeUndefined();
  });

  it("after a change, records the artifact files it left untouched with the signature the comparison found, and every other with its signature after the compile", async () => {
    const echo = path.join(root, "plugins", "example", "ai.assemblyline", "echo.ts");
    const original = fs.readFileSync(echo, "utf8");
    const signaturesAfterChange = async (variant: string): Promise<ReadonlyMap<string, string>> => {
      fs.writeFileSync(echo, original.replace("return { message: input.message };", `return { message: input.message, variant: "${variant}" };`));
      // As \`compile\` does: the failed check hands on the artifact files the record vouches for.
      const known = new Map<string, readonly [string, string]>();
      expect(replayCompile(root, compileRecordKey(options), known)).toBeUndefined();
      expect(known.size).toBeGreaterThan(1);
      const recording = recordingHost(root);
      const recorder = compileRecorder(root, recording);
      const result = await compileAgent({ ...options, host: recording.host, recordInput: recorder.recordInput, knownArtifactFiles: known });
      expect(result.ok).toBe(true);
      recorder.save(result, compileRecordKey(options));
      const payload = readSealedLog(recordFile(), COMPILE_RECORD_MAGIC)?.segments[0] as { artifact: [string, string, string | null][] };
      expect(payload.artifact.length).toBe(result.artifactFiles!.size);
      for (const [file, , signature] of payload.artifact) expect(signature, file).toBe(statSignature(file));
      return result.artifactSignatures!;
    };
    // No spare yet: the unchanged bundles are linked into a fresh folder (their change times move).
    expect((await signaturesAfterChange("one")).size).toBe(0);
    // From the spare: the unchanged bundles are the very files compared, untouched.
    const untouched = await signaturesAfterChange("two");
    expect(untouched.size).toBeGreaterThan(0);
    expect(untouched.has("manifest.json")).toBe(false);
    expect([...untouched.keys()].some((file) => file.endsWith("/echo.mjs"))).toBe(false);
  }, 120_000);

  it("keeps no record that vouches for an artifact file another writer changed after the compile wrote it (same size)", async () => {
    const echo = path.join(root, "plugins", "example", "ai.assemblyline", "echo.ts");
    fs.writeFileSync(echo, fs.readFileSync(echo, "utf8").replace("return { message: input.message };", 'return { message: input.message, variant: "other" };'));
    const recording = recordingHost(root);
    const recorder = compileRecorder(root, recording);
    const result = await compileAgent({ ...options, host: recording.host, recordInput: recorder.recordInput });
    expect(result.ok).toBe(true);
    // Between the compile's write and the record: the manifest's last byte changed, its size kept.
    const manifest = path.join(root, ".assemblyline", "build", "manifest.json");
    const bytes = fs.readFileSync(manifest);
    bytes[bytes.length - 1] = 0x20;
    fs.writeFileSync(manifest, bytes);
    recorder.save(result, compileRecordKey(options));
    expect(replayCompile(root, compileRecordKey(options))).toBeUndefined();
  }, 120_000);

  it("checks the artifact by content when its stat moved: a touch holds, other bytes do not", () => {
    const manifest = path.join(root, ".assemblyline", "build", "manifest.json");
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(manifest, later, later);
    expect(replayCompile(root, compileRecordKey(options))).toBeDefined();
    fs.appendFileSync(manifest, " ");
    expect(replayCompile(root, compileRecordKey(options))).toBeUndefined();
  });

  it("records the lock a compile wrote when a compile reading it decides alike; the next replays", async () => {
    const definition = path.join(root, "plugins", "example", "ai.assemblyline", "echo.ts");
    fs.writeFileSync(definition, fs.readFileSync(definition, "utf8").replace("return { message: input.message };", "return { message: input.message, echoed: true };"));
    expect(replayCompile(root, compileRecordKey(options))).toBeUndefined();
    await compileRecording();
    expect(replayCompile(root, compileRecordKey(options))).toBeDefined();
    // The lock on disk is the one recorded, by content: another byte and it no longer holds.
    fs.appendFileSync(path.join(root, "plugins.lock"), "\n");
    expect(replayCompile(root, compileRecordKey(options))).toBeUndefined();
  });

  it("does not hold when a file it read became a link to the same bytes (the kind its folder's listing gave)", () => {
    // Kinds inside the agent come from folder listings (build/snapshot-host.ts), so the record
    // holds the listing, not a kind probe per file: a kind change must still be seen.
    const definition = path.join(root, "plugins", "example", "ai.assemblyline", "echo.ts");
    const elsewhere = path.join(fs.mkdtempSync(path.join(path.dirname(root), "al-linked-")), "echo.ts");
    fs.copyFileSync(definition, elsewhere);
    expect(replayCompile(root, compileRecordKey(options))).toBeDefined();
    fs.rmSync(definition);
    fs.symlinkSync(elsewhere, definition);
    expect(fs.readFileSync(definition, "utf8")).toBe(fs.readFileSync(elsewhere, "utf8"));
    expect(replayCompile(root, compileRecordKey(options))).toBeUndefined();
  });

  it("records nothing (and deletes the older record) after recomputing a damaged lock: the next compile reports differently", async () => {
    fs.writeFileSync(path.join(root, "plugins.lock"), "{ not json");
    await compileRecording();
    expect(fs.existsSync(recordFile())).toBe(false);
  });
});
