/** The agent's name `init` writes from its folder's name (cli/init/agent-template.ts, agentNameFor). */
import { describe, expect, it } from "vitest";
import { agentNameFor } from "../../cli/init/agent-template.js";

describe("agentNameFor", () => {
  it("lower-cases, joins words with dashes, and keeps an accented letter's base letter (helper-73: my-ag-nt)", () => {
    expect(agentNameFor("Support Bot")).toBe("support-bot");
    expect(agentNameFor("My Agënt")).toBe("my-agent");
    expect(agentNameFor("Café_Ünïcode")).toBe("cafe-unicode");
  });

  it("falls back to my-agent when nothing of the name is left", () => {
    expect(agentNameFor("日本")).toBe("my-agent");
    expect(agentNameFor("--")).toBe("my-agent");
  });
});
