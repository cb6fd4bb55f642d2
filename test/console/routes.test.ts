/**
 * Every console page must be one the control plane answers with index.html, or a reload or a
 * shared link of it gets the API's 404: the links the console makes and the routes it declares all
 * lie under the server's list of console prefixes.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { paths } from "../../src/console/routes";
import { CONSOLE_ROUTE_PREFIXES, CONSOLE_TRACING_HOME } from "../../src/shared/console-routes";

const served = (p: string) => CONSOLE_ROUTE_PREFIXES.some((prefix) => p === prefix || p.startsWith(`${prefix}/`) || p.startsWith(`${prefix}?`));

describe("console routes", () => {
  it("links only to pages the control plane serves", () => {
    const links = Object.values(paths).map((p) => (typeof p === "string" ? p : p("id-1", "id-2")));
    expect(links.length).toBeGreaterThan(5);
    expect(links.filter((l) => !served(l))).toEqual([]);
  });

  it("sends /tracing (for browsers) to the page the console's Tracing link opens", () => {
    expect(CONSOLE_TRACING_HOME).toBe(paths.projects);
    const layout = readFileSync(new URL("../../src/console/components/Layout.tsx", import.meta.url), "utf8");
    expect(layout).toContain("<NavLink to={paths.projects}>Tracing</NavLink>");
    // the datasets list is reachable from the navigation too
    expect(layout).toContain("<NavLink to={paths.datasets}>Datasets</NavLink>");
  });

  it("declares only routes under those prefixes", () => {
    const app = readFileSync(new URL("../../src/console/App.tsx", import.meta.url), "utf8");
    const declared = [...app.matchAll(/<Route path="([^"]+)"/g)].map((m) => m[1]!).filter((p) => p !== "*");
    expect(declared.length).toBeGreaterThan(5);
    expect(declared.filter((p) => !served(p))).toEqual([]);
  });
});
