/** The session as React state: who is signed in, for which tenant, and how to change that. */
import { createContext, useContext, useEffect, useMemo, useState, type ReactNode } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { endSession, onSessionChange, readSession, startSession, type Session } from "./api/session-store";

interface SessionState {
  session: Session | null;
  /** Why the last session ended (shown on the sign-in page). */
  endedBecause: string | undefined;
  signIn(s: Session): void;
  signOut(): void;
  switchTenant(tenantId: string): void;
}

const Ctx = createContext<SessionState | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<Session | null>(readSession);
  const [endedBecause, setEndedBecause] = useState<string>();
  const queries = useQueryClient();
  useEffect(
    () =>
      onSessionChange((s, reason) => {
        setSession(s);
        if (!s) setEndedBecause(reason);
        // answers cached for one key or tenant must never show under another
        queries.clear();
      }),
    [queries],
  );
  const value = useMemo<SessionState>(
    () => ({
      session,
      endedBecause,
      signIn: (s) => {
        setEndedBecause(undefined);
        startSession(s);
      },
      signOut: () => endSession(),
      switchTenant: (tenantId) => startSession({ ...readSession(), tenantId }),
    }),
    [session, endedBecause],
  );
  return <Ctx.Provider value={value}>{children}</Ctx.Provider>;
}

export function useSession(): SessionState {
  const s = useContext(Ctx);
  if (!s) throw new Error("useSession outside SessionProvider");
  return s;
}
