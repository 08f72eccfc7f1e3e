/**
 * The fixtures a runtime test holds for one test — an agent folder, an open runtime, an early
 * sandbox start — released after it whatever it ended with, and the sandbox launchers fixed for
 * a test file. Shared by the tests of the verified copy, the early start and the hidden-module
 * note, which held the same three in module-level variables each.
 */
import { afterAll, afterEach, beforeAll } from "vitest";
import type { Runtime } from "../../../runtime-min/index.js";
import type { EarlySandboxStart } from "../../../runtime-min/execution/early-start.js";
import { prepareChildSource } from "../../../runtime-min/sandbox/child-script.js";
import { probeProcessIsolation, setSandboxLaunchTools } from "../../../runtime-min/sandbox/process-isolation.js";
import type { AgentFixture } from "./agent-fixture.js";

/** What one test holds; a test assigns what it makes, and {@link holdFixtures}'s hook releases it. */
export interface HeldFixtures {
  agent?: AgentFixture;
  runtime?: Runtime;
  early?: EarlySandboxStart;
}

/**
 * Registers an `afterEach` hook that closes the held runtime, discards the held early start and
 * removes the held agent folder (in that order: the runtime first, as it may still use the
 * folder), then empties the holder; returns the holder the file's tests assign to.
 */
export function holdFixtures(): HeldFixtures {
  const held: HeldFixtures = {};
  afterEach(async () => {
    await held.runtime?.close();
    held.early?.discard();
    held.agent?.cleanup();
    delete held.runtime;
    delete held.early;
    delete held.agent;
  });
  return held;
}

/**
 * Fixes the launchers this machine gives a sandbox process for the whole test file
 * (`setSandboxLaunchTools`), so the runtime and the early start agree on them whichever agent
 * root the probe's cache was first read from; undone after the file.
 */
export function fixSandboxLaunchTools(): void {
  beforeAll(async () => {
    await prepareChildSource();
    setSandboxLaunchTools((await probeProcessIsolation()).tools);
  }, 60_000);
  afterAll(() => setSandboxLaunchTools(undefined));
}
