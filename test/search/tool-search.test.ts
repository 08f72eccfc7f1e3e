import { describe, expect, test } from "vitest";
import { createToolSearchIndex, type SearchableTool } from "../../runtime-min/search/index.js";
import { buildSnapshot } from "../../runtime-min/snapshot/index.js";
import { fixtureManifest } from "../snapshot/fixture-manifest.js";

/** 25 deferred tools `report_00` … `report_24`, all mentioning "quarterly". */
function deferredReports(): SearchableTool[] {
  return Array.from({ length: 25 }, (_, i) => ({
    name: `report_${String(i).padStart(2, "0")}`,
    description: `Build quarterly report number ${i}.`,
    visibility: "deferred",
  }));
}

describe("paging", () => {
  test.each([[""], ["quarterly report"]])("query %j pages 8, 8, 8, 1 over 25 deferred tools", (query) => {
    const index = createToolSearchIndex(deferredReports());
    const first = index.search(query);
    expect(first.tools).toHaveLength(8);
    expect(first).toMatchObject({ totalMatches: 25, hasMore: true, nextOffset: 8 });

    const second = index.search(query, { offset: first.nextOffset });
    expect(second.tools).toHaveLength(8);
    expect(second).toMatchObject({ totalMatches: 25, hasMore: true, nextOffset: 16 });

    const third = index.search(query, { offset: second.nextOffset });
    expect(third).toMatchObject({ totalMatches: 25, hasMore: true, nextOffset: 24 });

    const last = index.search(query, { offset: third.nextOffset });
    expect(last.tools).toHaveLength(1);
    expect(last.totalMatches).toBe(25);
    expect(last.hasMore).toBe(false);
    expect(last).not.toHaveProperty("nextOffset");

    const seen = [...first.tools, ...second.tools, ...third.tools, ...last.tools].map((tool) => tool.name);
    expect(new Set(seen).size).toBe(25);
  });

  test("limit 50 is capped at 20; limit 0 becomes 1; the default is 8", () => {
    const index = createToolSearchIndex(deferredReports());
    const capped = index.search("", { limit: 50 });
    expect(capped.tools).toHaveLength(20);
    expect(capped).toMatchObject({ totalMatches: 25, hasMore: true, nextOffset: 20 });
    expect(index.search("", { limit: 0 }).tools).toHaveLength(1);
    expect(index.search("").tools).toHaveLength(8);
    expect(index.search("", { limit: 20, offset: 20 })).toEqual({ tools: index.search("", { limit: 5, offset: 20 }).tools, totalMatches: 25, hasMore: false });
  });

  test("an offset past the end returns an empty last page; a bad offset throws", () => {
    const index = createToolSearchIndex(deferredReports());
    expect(index.search("", { offset: 100 })).toEqual({ tools: [], totalMatches: 25, hasMore: false });
    expect(() => index.search("", { offset: -1 })).toThrow(RangeError);
    expect(() => index.search("", { offset: 1.5 })).toThrow(RangeError);
  });

  test('"" browses the whole catalogue by name in code-unit order', () => {
    const index = createToolSearchIndex([
      { name: "b_tool", description: "b" },
      { name: "B_tool", description: "B" },
      { name: "a_tool", description: "a" },
    ]);
    expect(index.search("   ").tools.map((tool) => tool.name)).toEqual(["B_tool", "a_tool", "b_tool"]);
  });
});

describe("ranking", () => {
  const catalogue: SearchableTool[] = [
    { name: "dispute_handler", description: "Handle billing disputes: billing questions, billing errors and billing refunds." },
    { name: "charge_card", description: "Charge a card.", tags: ["billing"] },
    { name: "billing_report", description: "A report." },
    { name: "send_mail", description: "Send a message to a customer.", aliases: ["email", "notify"] },
    { name: "notification_center", description: "Notify, notify, notify: shows notifications to notify people." },
    { name: "notify_admins", description: "Notify admins: notify on-call, notify owners, notify everyone." },
    { name: "create_issue", description: "Open a ticket.", namespace: "github" },
    { name: "getHTTPStatus", description: "Check whether a site answers." },
  ];
  const index = createToolSearchIndex(catalogue);
  const names = (query: string): string[] => index.search(query, { limit: 20 }).tools.map((tool) => tool.name);

  test("a query naming a tag lists the tagged tool first", () => {
    expect(names("billing")[0]).toBe("charge_card");
    expect(names("billing")).toEqual(expect.arrayContaining(["dispute_handler", "billing_report"]));
  });

  test("a query naming an alias lists the aliased tool first", () => {
    expect(names("notify")[0]).toBe("send_mail");
    expect(names("please email the customer")[0]).toBe("send_mail");
  });

  test("namespaces, camelCase names, prefixes and plurals are matched", () => {
    expect(names("github")[0]).toBe("create_issue");
    expect(names("http status")[0]).toBe("getHTTPStatus");
    expect(names("get_http_status")[0]).toBe("getHTTPStatus");
    expect(names("disput")).toContain("dispute_handler");
    expect(names("issues")[0]).toBe("create_issue");
    expect(names("biling")).toContain("billing_report"); // one typo
  });

  test("stop words alone match nothing; unrelated words match nothing", () => {
    expect(index.search("the of")).toEqual({ tools: [], totalMatches: 0, hasMore: false });
    expect(index.search("zebra").totalMatches).toBe(0);
  });

  test("equal scores come back in name order, whatever the input order", () => {
    const twins = [
      { name: "zeta_export", description: "Export data." },
      { name: "alpha_export", description: "Export data." },
    ];
    expect(createToolSearchIndex(twins).search("export data").tools.map((tool) => tool.name)).toEqual(["alpha_export", "zeta_export"]);
    expect(createToolSearchIndex([...twins].reverse()).search("export data").tools.map((tool) => tool.name)).toEqual(["alpha_export", "zeta_export"]);
  });
});

describe("a tool's plugin is searched as its namespace (new-user trial of 6 December: `search weather`)", () => {
  const catalogue: SearchableTool[] = [
    { name: "forecast", description: "Get tomorrow's forecast for a city.", source: "plugin:weather" },
    { name: "alerts", description: "List warnings for a region.", source: "plugin:weather", visibility: "deferred" },
    { name: "weather", description: "Current conditions.", source: "plugin:conditions" },
    { name: "packing_list", description: "Suggest clothes for the weather at a place.", source: "plugin:travel" },
    { name: "read", description: "Read a file.", source: "core" },
  ];
  const index = createToolSearchIndex(catalogue);
  const names = (query: string): string[] => index.search(query, { limit: 20 }).tools.map((tool) => tool.name);

  test("the plugin's name finds its tools, below a tool that name names and above a description's mention", () => {
    expect(names("weather")).toEqual(["weather", "alerts", "forecast", "packing_list"]);
  });

  test("a core tool's source is not a namespace, and a plugin's name is matched as words", () => {
    expect(names("core")).toEqual([]);
    expect(names("plugin")).toEqual([]);
    const kebab = createToolSearchIndex([{ name: "lookup", description: "Look a record up.", source: "plugin:private-search" }]);
    expect(kebab.search("private search").tools.map((tool) => tool.name)).toEqual(["lookup"]);
  });
});

describe("hidden tools", () => {
  test("are never found by name, alias, tag, description or browsing", () => {
    const index = createToolSearchIndex([
      { name: "audit_log", description: "Secret audit trail.", tags: ["audit"], aliases: ["trail"], visibility: "hidden" },
      { name: "echo", description: "Echo text.", visibility: "visible" },
    ]);
    for (const query of ["audit_log", "audit", "trail", "secret", "audit log"]) {
      expect(index.search(query).totalMatches).toBe(0);
    }
    expect(index.search("").tools.map((tool) => tool.name)).toEqual(["echo"]);
    expect(index.size).toBe(1);
  });

  test("a surface catalogue never exposes its hidden tool", () => {
    const catalog = buildSnapshot({ manifest: fixtureManifest(), surfaceId: "." }).catalog;
    const index = createToolSearchIndex(catalog);
    expect(index.search("audit", { limit: 20 }).tools.map((tool) => tool.name)).not.toContain("audit_log");
    expect(index.search("", { limit: 20, offset: 0 }).totalMatches).toBe(catalog.length);
    expect(index.search("invoice").tools[0]?.name).toBe("invoice_lookup");
  });
});

test("duplicate names are a programming error", () => {
  expect(() => createToolSearchIndex([{ name: "a", description: "x" }, { name: "a", description: "y" }])).toThrow(/appears twice/);
});

test("pages of any size concatenate to the same ranking, also past the deep-page threshold", () => {
  const words = ["alpha", "beta", "gamma", "delta", "omega"];
  const tools: SearchableTool[] = Array.from({ length: 600 }, (_, i) => ({
    name: `tool_${String(i).padStart(3, "0")}`,
    description: `${words[i % 5]} export ${words[(i * 7) % 5]} ${"export ".repeat(i % 4)}data`,
    tags: i % 50 === 0 ? ["export"] : [],
  }));
  const index = createToolSearchIndex(tools);
  const collect = (limit: number): string[] => {
    const names: string[] = [];
    for (let offset: number | undefined = 0; offset !== undefined; ) {
      const page: ReturnType<typeof index.search> = index.search("export", { limit, offset });
      names.push(...page.tools.map((tool) => tool.name));
      offset = page.nextOffset;
    }
    return names;
  };
  const by20 = collect(20);
  expect(by20).toHaveLength(600);
  expect(new Set(by20).size).toBe(600);
  expect(collect(7)).toEqual(by20);
  expect([...by20.slice(0, 12)].sort()).toEqual(tools.filter((_, i) => i % 50 === 0).map((tool) => tool.name)); // tag tier first
});

test("tiers reorder hits that BM25 alone ranks lower, on every page size", () => {
  const tools: SearchableTool[] = [
    ...Array.from({ length: 400 }, (_, i) => ({ name: `ship_ship_ship_${i}`, description: "Ship ship ship." })),
    ...Array.from({ length: 15 }, (_, i) => ({ name: `zz_courier_${i}`, description: "Hands parcels to a courier service with tracking and labels.", aliases: ["ship"] })),
  ];
  const index = createToolSearchIndex(tools);
  const aliased = tools.slice(400).map((tool) => tool.name).sort();
  for (const limit of [3, 8, 20]) {
    const names: string[] = [];
    for (let offset = 0; offset < 15; offset += limit) names.push(...index.search("ship", { limit, offset }).tools.map((tool) => tool.name));
    expect(names.slice(0, 15).sort()).toEqual(aliased);
  }
  expect(index.search("ship", { limit: 20, offset: 15 }).tools.every((tool) => tool.name.startsWith("ship_"))).toBe(true);
});

test("a tag that is one word of a descriptive query does not outrank the tool the query describes (new-user trial 112, C1)", () => {
  const fileTools: SearchableTool[] = ["read", "write", "edit", "delete", "list", "grep"].map((name) => ({ name, description: `${name} files in the workspace.`, tags: ["file", "workspace"], source: "core" }));
  const index = createToolSearchIndex([...fileTools, { name: "publish_report", description: "Post a file to the team channel.", source: "plugin:filekit", visibility: "deferred" }]);
  expect(index.search("publish a file to the team channel").tools[0]?.name).toBe("publish_report");
  expect(index.search("publish file").tools[0]?.name).toBe("publish_report");
  // Made of the tag alone (or of a tool's own labels), the query still lists the tagged tools first.
  expect(index.search("file").tools.slice(0, 6).map((tool) => tool.name).sort()).toEqual(["delete", "edit", "grep", "list", "read", "write"]);
  expect(index.search("workspace file").tools[0]?.source).toBe("core");
});
