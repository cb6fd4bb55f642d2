/** The fields of one price entry, for adding one and for editing one in place. */
import { useState, type FormEvent } from "react";
import { ErrorBox } from "../components/common";
import { formToBody, type FormErrors, type PriceBody, type PriceForm } from "./rules";
import "./prices.css";

const FIELDS: { key: keyof PriceForm; label: string; placeholder?: string; hint?: string; type?: string }[] = [
  { key: "model_name", label: "Model name", placeholder: "gpt-4o-mini" },
  { key: "match_pattern", label: "Match pattern", placeholder: "^gpt-4o-mini", hint: "regular expression on the run's model name, case-insensitive" },
  { key: "provider", label: "Provider", placeholder: "optional, e.g. openai" },
  { key: "effective_from", label: "Effective from", type: "date", hint: "empty: always" },
  { key: "input_per_million", label: "Input $/1M tokens", placeholder: "0.15" },
  { key: "output_per_million", label: "Output $/1M tokens", placeholder: "0.6" },
  { key: "input_details", label: "Input by token type", placeholder: "cache_read=0.075, audio=10", hint: "name=price, …" },
  { key: "output_details", label: "Output by token type", placeholder: "reasoning=0.6", hint: "name=price, …" },
];

export function PriceEditor({
  initial,
  title,
  submitLabel,
  onSubmit,
  onCancel,
  apiError,
  busy,
}: {
  initial: PriceForm;
  title: string;
  submitLabel: string;
  onSubmit: (body: PriceBody) => void;
  onCancel: () => void;
  /** The API's answer to the last submit (422 field messages included). */
  apiError?: unknown;
  busy?: boolean;
}) {
  const [form, setForm] = useState(initial);
  const [errors, setErrors] = useState<FormErrors>({});
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const checked = formToBody(form);
    if (!checked.ok) return setErrors(checked.errors);
    setErrors({});
    onSubmit(checked.body);
  };
  const id = title.replace(/\W+/g, "-").toLowerCase();
  return (
    <form className="price-editor" onSubmit={submit} aria-labelledby={`${id}-title`} noValidate>
      <h3 id={`${id}-title`}>{title}</h3>
      <div className="price-grid">
        {FIELDS.map((f) => {
          const inputId = `${id}-${f.key}`;
          return (
            <div key={f.key} className={`price-field${errors[f.key] ? " invalid" : ""}`}>
              <label htmlFor={inputId}>{f.label}</label>
              <input
                id={inputId}
                type={f.type ?? "text"}
                value={form[f.key]}
                placeholder={f.placeholder}
                aria-invalid={errors[f.key] ? true : undefined}
                aria-describedby={`${inputId}-note`}
                spellCheck={false}
                onChange={(e) => setForm((prev) => ({ ...prev, [f.key]: e.target.value }))}
              />
              {errors[f.key] ? (
                <small id={`${inputId}-note`} className="field-error">
                  {errors[f.key]}
                </small>
              ) : (
                <small id={`${inputId}-note`} className="muted">
                  {f.hint ?? ""}
                </small>
              )}
            </div>
          );
        })}
      </div>
      {apiError ? <ErrorBox error={apiError} title="Not saved" /> : null}
      <div className="toolbar">
        <button type="submit" className="primary" disabled={busy}>
          {busy ? "Saving…" : submitLabel}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
