/** A short note next to the newest revision when it is not the one serving traffic. */
import type { Rollout } from "./status";

function text(rollout: Rollout, hasActive: boolean): string | null {
  switch (rollout) {
    case "rolling-out":
      return hasActive ? "rolling out; the active revision serves until it is ready" : "rolling out";
    case "failed":
      return hasActive ? "failed: the active revision keeps serving" : "failed: no revision serves traffic";
    case "stopped":
      return "stopped before serving";
    case "unchecked":
      return "differs from the active revision";
    default:
      return null;
  }
}

export function RolloutNote({ rollout, status, hasActive }: { rollout: Rollout; status?: string; hasActive: boolean }) {
  const t = text(rollout, hasActive);
  if (!t) return null;
  return (
    <div className={`rev-differs${rollout === "failed" ? " failed" : ""}`}>
      {status && rollout !== "unchecked" ? `${status} · ` : ""}
      {t}
    </div>
  );
}
