/**
 * The standalone Studio: the console's Studio (../Studio.tsx) for a bare agent server, served by
 * it at `/studio/` and talking to it at its own origin. No control plane, no tracing view: no
 * trace links. When the server requires a key or token (`/info` says which auth it runs), the page
 * asks for it and keeps it in sessionStorage only; with no auth (`berth serve` on loopback), none.
 */
import { useMemo, useState, type FormEvent } from "react";
import { QueryClient, QueryClientProvider, useQuery } from "@tanstack/react-query";
import { BrowserRouter, Route, Routes, useNavigate, useParams, useSearchParams } from "react-router";
import { ErrorBox, Loading } from "../../components/common";
import { studioClient } from "../client";
import { isStudioTab, Studio } from "../Studio";
import { authModeOf, credentialHeaders, forgetCredential, readCredential, saveCredential, type AuthHeader, type StudioCredential } from "./auth";
import { studioLocation } from "./location";

const queryClient = new QueryClient({ defaultOptions: { queries: { staleTime: 5_000, refetchOnWindowFocus: false, retry: 1 } } });
const where = studioLocation(window.location.origin, window.location.pathname);

export function StandaloneApp() {
  return (
    <QueryClientProvider client={queryClient}>
      <BrowserRouter basename={where.basename}>
        <header className="standalone-header">
          <strong>Berth Studio</strong> <span className="muted">{where.apiUrl}</span>
        </header>
        <main className="standalone-main">
          <Routes>
            <Route path="/:tab?" element={<Gate />} />
            <Route path="*" element={<p className="empty">No such page.</p>} />
          </Routes>
        </main>
      </BrowserRouter>
    </QueryClientProvider>
  );
}

function Gate() {
  const info = useQuery({
    queryKey: ["info"],
    queryFn: async () => {
      const res = await fetch(`${where.apiUrl}/info`);
      if (!res.ok) throw new Error(`GET /info answered HTTP ${res.status}`);
      return (await res.json()) as unknown;
    },
  });
  const [credential, setCredential] = useState<StudioCredential | null>(readCredential);
  if (info.isPending) return <Loading what="server" />;
  if (info.error) return <ErrorBox error={info.error} title="Could not reach the agent server" />;
  const mode = authModeOf(info.data);
  if (mode !== "none" && !credential) return <AskCredential mode={mode} onDone={setCredential} />;
  const signOut =
    mode !== "none"
      ? () => {
          forgetCredential();
          queryClient.clear();
          setCredential(null);
        }
      : undefined;
  return <StandaloneStudio key={credential?.value ?? ""} headers={mode === "none" ? {} : credentialHeaders(credential)} onSignOut={signOut} />;
}

function StandaloneStudio({ headers, onSignOut }: { headers: Record<string, string>; onSignOut?: () => void }) {
  const { tab } = useParams();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const client = useMemo(() => studioClient({ apiUrl: where.apiUrl, headers }), [headers]);
  const assistantId = params.get("assistant") ?? undefined;
  const current = isStudioTab(tab) ? tab : "graph";
  return (
    <>
      {onSignOut ? (
        <p className="standalone-signout">
          <button type="button" className="link" onClick={onSignOut}>Forget the key</button>
        </p>
      ) : null}
      <Studio
        client={client}
        tab={current}
        assistantId={assistantId}
        onNavigate={(to) => {
          const a = to.assistantId ?? assistantId;
          navigate(`/${encodeURIComponent(to.tab ?? current)}${a ? `?assistant=${encodeURIComponent(a)}` : ""}`);
        }}
      />
    </>
  );
}

/** Asks for the key (platform auth) or token (custom auth); checked against the server before it is kept. */
function AskCredential({ mode, onDone }: { mode: string; onDone: (c: StudioCredential) => void }) {
  const [value, setValue] = useState("");
  const [header, setHeader] = useState<AuthHeader>(mode === "custom" ? "authorization" : "x-api-key");
  const [problem, setProblem] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const c: StudioCredential = { header, value: value.trim() };
    if (!c.value) return;
    setBusy(true);
    setProblem(undefined);
    try {
      const res = await fetch(`${where.apiUrl}/assistants/search`, {
        method: "POST",
        headers: { "Content-Type": "application/json", ...credentialHeaders(c) },
        body: JSON.stringify({ limit: 1 }),
      });
      if (res.status === 401 || res.status === 403) {
        const body = (await res.json().catch(() => ({}))) as { detail?: unknown };
        setProblem(`The server refused it (HTTP ${res.status})${typeof body.detail === "string" ? `: ${body.detail}` : ""}`);
        return;
      }
      saveCredential(c);
      onDone(c);
    } catch (err) {
      setProblem((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="standalone-auth" onSubmit={(e) => void submit(e)} aria-label="Sign in">
      <h1>Sign in to this agent server</h1>
      <p className="muted">
        It requires {mode === "custom" ? "a token (its custom auth decides what it accepts)" : "an API key"}. The page keeps it for this tab only (sessionStorage).
      </p>
      <label>
        {mode === "custom" ? "Token" : "API key"}{" "}
        <input aria-label="Key or token" type="password" autoComplete="off" value={value} onChange={(e) => setValue(e.target.value)} autoFocus />
      </label>{" "}
      <label>
        sent as{" "}
        <select aria-label="Sent as" value={header} onChange={(e) => setHeader(e.target.value as AuthHeader)}>
          <option value="x-api-key">X-Api-Key</option>
          <option value="authorization">Authorization: Bearer</option>
        </select>
      </label>{" "}
      <button type="submit" disabled={busy || !value.trim()}>Open Studio</button>
      {problem ? <p role="alert" className="field-error">{problem}</p> : null}
    </form>
  );
}
