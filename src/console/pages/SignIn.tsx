/**
 * Sign-in with an API key. The key is checked against `/v2/whoami` before it is kept; a key that
 * acts for several tenants gets a tenant picker. `berth dev` lets this machine in without a key.
 */
import { useEffect, useState, type FormEvent } from "react";
import { useLocation, useNavigate } from "react-router";
import { ApiError, controlPlane, data } from "../api/client";
import type { Whoami } from "../api/types";
import { paths } from "../routes";
import { useSession } from "../session";

/** Who a key (or, without one, this machine) is: the check before anything is kept. */
async function whoami(apiKey: string | undefined): Promise<Whoami> {
  // signed out, the client adds no key of its own: only the one being tried is sent
  return data(await controlPlane.GET("/v2/whoami", { headers: apiKey ? { "X-Api-Key": apiKey } : {} }));
}

export function SignIn() {
  const { signIn, endedBecause } = useSession();
  const navigate = useNavigate();
  const from = (useLocation().state as { from?: string } | null)?.from ?? paths.deployments;
  const [apiKey, setApiKey] = useState("");
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [choice, setChoice] = useState<{ key?: string; me: Whoami }>();
  const [openAccess, setOpenAccess] = useState<Whoami>();

  useEffect(() => {
    whoami(undefined).then(setOpenAccess, () => setOpenAccess(undefined));
  }, []);

  const enter = (key: string | undefined, tenantId: string) => {
    signIn({ ...(key ? { apiKey: key } : {}), tenantId });
    navigate(from, { replace: true });
  };

  const proceed = (key: string | undefined, me: Whoami) => {
    if (me.tenants.length > 1) setChoice({ key, me });
    else enter(key, me.tenant_id);
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      proceed(apiKey.trim(), await whoami(apiKey.trim()));
    } catch (err) {
      setError(err instanceof ApiError && err.status === 401 ? "That API key was not accepted." : err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  if (choice)
    return (
      <div className="signin">
        <h1>Choose a tenant</h1>
        <p>This key acts for {choice.me.tenants.length} tenants.</p>
        <ul className="tenant-list">
          {choice.me.tenants.map((t) => (
            <li key={t.id}>
              <button type="button" onClick={() => enter(choice.key, t.id)}>
                {t.name}
              </button>{" "}
              <code>{t.id}</code>
            </li>
          ))}
        </ul>
      </div>
    );

  return (
    <div className="signin">
      <h1>Sign in to Berth</h1>
      {endedBecause ? <p className="error">{endedBecause}</p> : null}
      <form onSubmit={submit}>
        <label>
          API key
          <input type="password" name="api-key" autoComplete="off" value={apiKey} onChange={(e) => setApiKey(e.target.value)} placeholder="berth_…" required />
        </label>
        <button type="submit" className="primary" disabled={busy || !apiKey.trim()}>
          {busy ? "Checking…" : "Sign in"}
        </button>
      </form>
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : null}
      <p className="hint">The key stays in this browser tab only. `berth dev` prints its admin key at first start and keeps it in its data directory (admin.key).</p>
      {openAccess ? (
        <p>
          <button type="button" onClick={() => proceed(undefined, openAccess)}>
            Continue without a key
          </button>{" "}
          <span className="hint">(this server lets requests from this machine in)</span>
        </p>
      ) : null}
    </div>
  );
}
