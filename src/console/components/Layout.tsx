/** The frame of every signed-in page: navigation, the tenant picker, sign-out. */
import { useQuery } from "@tanstack/react-query";
import { NavLink, Outlet } from "react-router";
import { controlPlane, data } from "../api/client";
import { paths } from "../routes";
import { useSession } from "../session";

export function useWhoami() {
  return useQuery({ queryKey: ["whoami"], queryFn: async () => data(await controlPlane.GET("/v2/whoami")) });
}

export function Layout() {
  const { session, signOut, switchTenant } = useSession();
  const me = useWhoami();
  const tenants = me.data?.tenants ?? [];
  return (
    <div className="shell">
      <header className="topbar">
        <span className="brand">Berth</span>
        <nav>
          <NavLink to={paths.deployments}>Deployments</NavLink>
          <NavLink to={paths.projects}>Tracing</NavLink>
          <NavLink to={paths.datasets}>Datasets</NavLink>
          <NavLink to={paths.prices}>Model prices</NavLink>
        </nav>
        <span className="spacer" />
        {tenants.length > 1 ? (
          <label className="tenant">
            Tenant{" "}
            <select aria-label="Tenant" value={session?.tenantId ?? me.data?.tenant_id ?? ""} onChange={(e) => switchTenant(e.target.value)}>
              {tenants.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.name}
                </option>
              ))}
            </select>
          </label>
        ) : tenants[0] ? (
          <span className="tenant">Tenant {tenants[0].name}</span>
        ) : null}
        <button type="button" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main>
        <Outlet />
      </main>
    </div>
  );
}
