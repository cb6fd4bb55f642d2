/** Pretty-printed JSON (or raw text) in a <pre>, capped with a "show all" button for big payloads. */
import { useState } from "react";
import { JSON_PREVIEW_CHARS, jsonText } from "./json-text";
import { fmtTokens } from "../format";

export function JsonView({ value, label, limit = JSON_PREVIEW_CHARS, className }: { value: unknown; label?: string; limit?: number; className?: string }) {
  const [all, setAll] = useState(false);
  const shown = jsonText(value, all ? Infinity : limit);
  return (
    <div className={`json-view${className ? ` ${className}` : ""}`}>
      <pre aria-label={label}>{shown.text}</pre>
      {shown.truncated ? (
        <button type="button" className="show-all" onClick={() => setAll(true)}>
          Show all ({fmtTokens(shown.total)} characters, {fmtTokens(shown.total - shown.text.length)} hidden)
        </button>
      ) : null}
    </div>
  );
}
