/** Small pieces every page uses: loading and error states, status badges, confirmation. */
import { useState, type ReactNode } from "react";
import { ApiError } from "../api/client";

export function Loading({ what }: { what?: string }) {
  return (
    <p className="loading" role="status">
      Loading{what ? ` ${what}` : ""}…
    </p>
  );
}

/** An error as the API described it (never a stack trace). */
export function ErrorBox({ error, title }: { error: unknown; title?: string }) {
  const message = error instanceof ApiError ? `${error.message} (HTTP ${error.status})` : error instanceof Error ? error.message : String(error);
  return (
    <div className="error" role="alert">
      {title ? <strong>{title}: </strong> : null}
      {message}
    </div>
  );
}

const TONE: Record<string, string> = {
  DEPLOYED: "ok",
  READY: "ok",
  success: "ok",
  AWAITING_DATABASE: "busy",
  AWAITING_DEPLOY: "busy",
  AWAITING_DELETE: "busy",
  QUEUED: "busy",
  BUILDING: "busy",
  DEPLOYING: "busy",
  CREATING: "busy",
  UPDATING: "busy",
  pending: "busy",
  running: "busy",
  CREATE_FAILED: "bad",
  BUILD_FAILED: "bad",
  DEPLOY_FAILED: "bad",
  UNUSED: "idle",
  INTERRUPTED: "idle",
  SKIPPED: "idle",
  error: "bad",
};

export function StatusBadge({ status }: { status: string | null | undefined }) {
  const s = status ?? "unknown";
  return <span className={`badge badge-${TONE[s] ?? "idle"}`}>{s}</span>;
}

/**
 * A button that asks before it acts, then shows what happened. `action` returns a message for
 * the result line; a thrown error is shown instead.
 */
export function ConfirmButton({
  label,
  question,
  action,
  danger,
  disabled,
}: {
  label: string;
  question: ReactNode;
  action: () => Promise<string | void>;
  danger?: boolean;
  disabled?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; text: string }>();
  const run = async () => {
    setBusy(true);
    setResult(undefined);
    try {
      const text = await action();
      setResult({ ok: true, text: text || `${label}: done` });
      setAsking(false);
    } catch (err) {
      setResult({ ok: false, text: err instanceof Error ? err.message : String(err) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <span className="confirm">
      <button type="button" className={danger ? "danger" : undefined} disabled={disabled || busy} onClick={() => setAsking(true)}>
        {label}
      </button>
      {asking ? (
        <span className="confirm-box" role="dialog" aria-label={`Confirm ${label}`}>
          <span>{question}</span>
          <button type="button" className={danger ? "danger" : "primary"} disabled={busy} onClick={run}>
            {busy ? "Working…" : `Yes, ${label.toLowerCase()}`}
          </button>
          <button type="button" disabled={busy} onClick={() => setAsking(false)}>
            Cancel
          </button>
        </span>
      ) : null}
      {result ? (
        <span className={result.ok ? "result-ok" : "result-bad"} role="status">
          {result.text}
        </span>
      ) : null}
    </span>
  );
}
